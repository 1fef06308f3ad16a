package murmur3

import (
	"testing"
)

// TestVectors: tokens Cassandra 5.0.9 computed for these blob keys
// (SELECT token(key) FROM standard1 WHERE key = ?, the table of
// adapter/cql/native_test.go): tails of 1-15 bytes, one and two blocks,
// bytes above 0x7F that Cassandra sign-extends.
func TestVectors(t *testing.T) {
	for k, want := range vectors {
		if got := Token([]byte(k)); got != want {
			t.Errorf("Token(%q) = %d, want %d (Cassandra's)", k, got, want)
		}
	}
	// The empty key: every step but the blocks and the tail.
	if got := Token(nil); got != 0 {
		t.Errorf("Token(nil) = %d, want 0 (fmix64 of zeros)", got)
	}
}

func TestTokenDoesNotAllocate(t *testing.T) {
	k := []byte("a key of twenty-nine bytes...")
	if n := testing.AllocsPerRun(100, func() { Token(k) }); n != 0 {
		t.Errorf("%v allocations per Token, want 0", n)
	}
}

var vectors = map[string]int64{
	"L":                                    -300136452241384611,
	"W|":                                   8756613289146334396,
	"b\x87\xac":                            2431942896660972192,
	"m\x92\xb7\xdc":                        -1759991823026199555,
	"x\x9d\xc2\xe7N":                       1011480408694081033,
	"\x83\xa8\xcd\xf2Y~":                   -453928644570841135,
	"\x8e\xb3\xd8\xfdd\x89\xae":            1508834858518717257,
	"\x99\xbe\xe3Jo\x94\xb9\xde":           -5875068081973061119,
	"\xa4\xc9\xeeUz\x9f\xc4\xe9P":          -9187305428730175535,
	"\xaf\xd4\xf9`\x85\xaa\xcf\xf4[\x80":   -4155146035612281483,
	"\xba\xdfFk\x90\xb5\xdaAf\x8b\xb0":     -3546706986891588242,
	"\xc5\xeaQv\x9b\xc0\xe5Lq\x96\xbb\xe0": 7687870172250128474,
	"\xd0\xf5\\\x81\xa6\xcb\xf0W|\xa1\xc6\xebR":                                                             8150313791016090640,
	"\xdbBg\x8c\xb1\xd6\xfbb\x87\xac\xd1\xf6]\x82":                                                          3177872675925633908,
	"\xe6Mr\x97\xbc\xe1Hm\x92\xb7\xdcCh\x8d\xb2":                                                            6243660102101052512,
	"\xf1X}\xa2\xc7\xecSx\x9d\xc2\xe7Ns\x98\xbd\xe2":                                                        -192849591908795137,
	"\xfcc\x88\xad\xd2\xf7^\x83\xa8\xcd\xf2Y~\xa3\xc8\xedT":                                                 -7218766921850123993,
	"In\x93\xb8\xddDi\x8e\xb3\xd8\xfdd\x89\xae\xd3\xf8_\x84":                                                -3651629245184783781,
	"Ty\x9e\xc3\xe8Ot\x99\xbe\xe3Jo\x94\xb9\xdeEj\x8f\xb4":                                                  4758917822930105331,
	"_\x84\xa9\xce\xf3Z\x7f\xa4\xc9\xeeUz\x9f\xc4\xe9Pu\x9a\xbf\xe4":                                        -771663393174024720,
	"j\x8f\xb4\xd9\xfee\x8a\xaf\xd4\xf9`\x85\xaa\xcf\xf4[\x80\xa5\xca\xefV":                                 2956418648183921490,
	"u\x9a\xbf\xe4Kp\x95\xba\xdfFk\x90\xb5\xdaAf\x8b\xb0\xd5\xfaa\x86":                                      2551267372429614200,
	"\x80\xa5\xca\xefV{\xa0\xc5\xeaQv\x9b\xc0\xe5Lq\x96\xbb\xe0Gl\x91\xb6":                                  1145280714695465051,
	"\x8b\xb0\xd5\xfaa\x86\xab\xd0\xf5\\\x81\xa6\xcb\xf0W|\xa1\xc6\xebRw\x9c\xc1\xe6":                       1695499525884814954,
	"\x96\xbb\xe0Gl\x91\xb6\xdbBg\x8c\xb1\xd6\xfbb\x87\xac\xd1\xf6]\x82\xa7\xcc\xf1X":                       -4397475531032750365,
	"\xa1\xc6\xebRw\x9c\xc1\xe6Mr\x97\xbc\xe1Hm\x92\xb7\xdcCh\x8d\xb2\xd7\xfcc\x88":                         -3450715045675958105,
	"\xac\xd1\xf6]\x82\xa7\xcc\xf1X}\xa2\xc7\xecSx\x9d\xc2\xe7Ns\x98\xbd\xe2In\x93\xb8":                     -4129241415645694956,
	"\xb7\xdcCh\x8d\xb2\xd7\xfcc\x88\xad\xd2\xf7^\x83\xa8\xcd\xf2Y~\xa3\xc8\xedTy\x9e\xc3\xe8":              -5531444844967516543,
	"\xc2\xe7Ns\x98\xbd\xe2In\x93\xb8\xddDi\x8e\xb3\xd8\xfdd\x89\xae\xd3\xf8_\x84\xa9\xce\xf3Z":             -2923659113770594056,
	"\xcd\xf2Y~\xa3\xc8\xedTy\x9e\xc3\xe8Ot\x99\xbe\xe3Jo\x94\xb9\xdeEj\x8f\xb4\xd9\xfee\x8a":               7439629133878031299,
	"\xd8\xfdd\x89\xae\xd3\xf8_\x84\xa9\xce\xf3Z\x7f\xa4\xc9\xeeUz\x9f\xc4\xe9Pu\x9a\xbf\xe4Kp\x95\xba":     -8800174663902132908,
	"\xe3Jo\x94\xb9\xdeEj\x8f\xb4\xd9\xfee\x8a\xaf\xd4\xf9`\x85\xaa\xcf\xf4[\x80\xa5\xca\xefV{\xa0\xc5\xea": -2193275354743934319,
	"\xeeUz\x9f\xc4\xe9Pu\x9a\xbf\xe4Kp\x95\xba\xdfFk\x90\xb5\xdaAf\x8b\xb0\xd5\xfaa\x86\xab\xd0\xf5\\":     -8742875975850790974,
}
