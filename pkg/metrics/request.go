package metrics

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Request is a read of /metrics as its errors name it: the path without
// the name[] query (one parameter per family, hundreds of characters).
func Request(families int) string { return fmt.Sprintf("GET /metrics (%d families)", families) }

// ShortRequest is err, a failed read of /metrics, with the request's URL
// (client-go's *url.Error writes it whole, query and all) said as
// Request, and without the words net/http's client adds to a timeout the
// plugin already named ("(Client.Timeout exceeded while awaiting
// headers)"; adversary try 17). It unwraps to err, so the failure
// classifier and the exit codes still read it. The one wording of every
// /metrics failure: probe --metrics, list's server facts and top.
func ShortRequest(err error, families int) error {
	var ue *url.Error
	if !errors.As(err, &ue) || ue.Err == nil {
		return err
	}
	inner := strings.TrimSuffix(ue.Err.Error(), " (Client.Timeout exceeded while awaiting headers)")
	text := strings.Replace(err.Error(), ue.Error(), Request(families)+": "+inner, 1)
	return &requestError{err: err, text: text}
}

type requestError struct {
	err  error
	text string
}

func (e *requestError) Error() string { return e.text }
func (e *requestError) Unwrap() error { return e.err }
