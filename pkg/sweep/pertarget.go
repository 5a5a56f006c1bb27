package sweep

// Targets measured at the same time wait out their retries at the same
// time: the run's sum of waits is no target's, and its first retry's
// cause is one target's. A run whose rows each say their own retries
// (servers.Server.RetryWait) marks its error so, and the final error line
// then says the sum as one over targets that waited at once, never as a
// wait of the target the line names (adversary try 28 F3: "after 6
// retries and 4.60 s waiting" of parallel 1 s waits, appended to a line
// about a server that was sent nothing again).

// RetriesPerTarget is the mark (errors.As finds it through wrapping).
type RetriesPerTarget interface{ RetriesPerTarget() bool }

// WithRetriesPerTarget marks err, a PartialError or a NoneError, as a
// run's whose rows each say their own retries; any other err as it is.
func WithRetriesPerTarget(err error) error {
	if t := targetsOf(err); t != nil {
		t.PerTarget = true
	}
	return err
}

func (e *PartialError) RetriesPerTarget() bool { return e.PerTarget && e.Total > 1 }
func (e *NoneError) RetriesPerTarget() bool    { return e.PerTarget && e.Total > 1 }

// OneTarget: the run had one target, whose retries are the run's (said
// as one request's are: adversary try 41 F4, "waits added up over servers
// that waited at the same time" of the one server).
func (t Targets) OneTarget() bool { return t.Total == 1 }
