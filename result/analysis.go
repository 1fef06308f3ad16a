package result

// Analysis is derived from the rest of the file by package analysis
// (steady state, stability, stalls, page cache, cost). Its fields are filled
// by analysis.Analyze; this file only declares the shape.
type Analysis struct {
}
