package units

import (
	"math"
	"strconv"
)

// Formatters added for the report package's cost and plan tables.

// Cents formats dollars to the cent with thousands separators, "$10,932.48";
// amounts below a dollar keep three significant digits, "$0.00217".
func Cents(v float64) string {
	if math.Abs(v) < 1 {
		return USD(v)
	}
	if v < 0 {
		return "-$" + Fixed(-v, 2)
	}
	return "$" + Fixed(v, 2)
}

// Price formats a unit price as a price list gives it, to the millionth of a
// dollar and no further: "$4.992", "$0.0816", "$1".
func Price(v float64) string {
	return "$" + strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// Sig3Grouped is Sig3 with thousands separators from 1,000 on: "7,562",
// "12.3", "0.46".
func Sig3Grouped(v float64) string {
	if math.Abs(v) >= 1000 {
		return Int(v)
	}
	return Sig3(v)
}
