package metrics

import "testing"

// The gauge keeps 15 digits: a current RV past 10^15 is compared the
// nearer way round (adversary try 37 F2: "999999999999994 ahead").
func TestCacheLagAcrossTheGaugesWrap(t *testing.T) {
	for _, c := range []struct {
		current uint64
		gauge   float64
		want    int64
	}{
		{579, 580, -1},
		{580, 579, 1},
		{1000000000000005, 999999999999999, 6},
		{2000000000000003, 3, 0},
	} {
		if got := cacheLag(c.current, c.gauge); got != c.want {
			t.Errorf("cacheLag(%d, %v) = %d, want %d", c.current, c.gauge, got, c.want)
		}
	}
}
