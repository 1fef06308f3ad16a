package analysis_test

import (
	"fmt"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/catalog"
)

// A disk that writes for 200 ms then does nothing for 800 ms, every second
// (the Redpanda report's i3.large), seen in 10 ms buckets of bytes written.
func ExampleRegulation() {
	var bytes []float64
	for s := 0; s < 10; s++ {
		for b := 0; b < 100; b++ {
			v := 0.0
			if b < 20 {
				v = 10e6 // 10 MB per 10 ms: 1 GB/s while at work
			}
			bytes = append(bytes, v)
		}
	}
	r := analysis.Regulation(bytes, 10*time.Millisecond)
	fmt.Println(r.Periodic, time.Duration(r.PeriodNs), time.Duration(r.OnNs), r.DutyCycle)
	// Output: true 1s 200ms 0.2
}

// MSER-5 on a series that ramps up for 10 s then holds: it cuts the first
// two batches of 5.
func ExampleMSER() {
	var ys []float64
	for i := 0; i < 60; i++ {
		y := 1000.0
		if i < 10 {
			y = 100 * float64(i+1)
		}
		ys = append(ys, y+float64(i%3)) // a little noise
	}
	d, _ := analysis.MSER(ys, 5)
	fmt.Println("trim", d, "s")
	// Output: trim 10 s
}

// The DataStax report's Table 3: 3, 6 and 9 i3.2xlarge a month.
func ExampleCostOf() {
	cat, _ := catalog.Default()
	in, _ := cat.Lookup("i3.2xlarge")
	for _, n := range []int{3, 6, 9} {
		c := analysis.CostOf(analysis.Price{Instance: in, PerHourUSD: in.PricePerHourUSD}, n, 30000, 0)
		fmt.Printf("%d nodes: $%.2f/month, $%.4f per million ops\n", n, c.MonthlyUSD, c.USDPerMillionOps)
	}
	// Output:
	// 3 nodes: $1366.56/month, $0.0173 per million ops
	// 6 nodes: $2733.12/month, $0.0347 per million ops
	// 9 nodes: $4099.68/month, $0.0520 per million ops
}
