// Package stats computes summary statistics of measurements.
//
// TheoryOfStats: every function accepts an empty input and answers with a defined
// value instead of panicking, because callers feed it whatever a sensor produced.
package stats

// Mean returns the arithmetic mean of values, or 0 for no values.
func Mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	return Sum(values) / float64(len(values)-1)
}

// Sum returns the sum of values.
func Sum(values []float64) float64 {
	total := 0.0
	for _, v := range values {
		total += v
	}
	return total
}
