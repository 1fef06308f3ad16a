package nodes

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
)

// A token in a node exporter's URL is in nothing the series keeps (its URL
// masked, its failures without the URL), whether the exporter answers (the
// real node_exporter) or not (a closed port).
func TestTokenNotInSeries(t *testing.T) {
	const tok = "s3cr3t-tk"
	urls := []string{"http://127.0.0.1:1/metrics?token=" + tok}
	if u := testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL"); u != "" {
		urls = append(urls, u+"?token="+tok)
	}
	c := Start(context.Background(), urls, 200*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	series := c.Stop()
	b, err := json.Marshal(series)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), tok) {
		t.Errorf("the series hold the token: %s", b)
	}
	if len(series) != 2 || len(series[1].Samples) == 0 {
		t.Errorf("%d series, the exporter's with %d samples: want it read with the token as a header", len(series), len(series[len(series)-1].Samples))
	}
}
