package units

import "testing"

func TestCostFormatters(t *testing.T) {
	cases := []struct{ got, want string }{
		{Cents(10932.48), "$10,932.48"},
		{Cents(113.88), "$113.88"},
		{Cents(1), "$1.00"},
		{Cents(0.00217), "$0.00217"},
		{Cents(-1234.5), "-$1,234.50"},
		{Price(4.992), "$4.992"},
		{Price(0.0816), "$0.0816"},
		{Price(1), "$1"},
		{Price(0.1234567), "$0.123457"},
		{Sig3Grouped(7562.4), "7,562"},
		{Sig3Grouped(12.34), "12.3"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
