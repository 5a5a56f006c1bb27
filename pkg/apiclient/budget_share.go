package apiclient

// Share returns a budget with its own request count and --max-requests
// (max; 0 = unlimited) that paces with b's rate limiter: requests sent to
// several API servers in parallel each stay within their own count, and
// all of them together within the one --qps of the run.
func (b *Budget) Share(max int) *Budget {
	s := &Budget{Max: max}
	if b != nil {
		s.limiter = b.limiter
	}
	return s
}
