package apiclient

import (
	"errors"
	"fmt"
	"io"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// BodyCut is the one wording of an answer whose body the connection cut
// before its end: "what broke off after N bytes: the connection closed
// before the answer's end", a *ConnectionLostError (exit 4), never Go's
// "unexpected EOF" (adversary F7: a /metrics cut said "broke: unexpected
// EOF" where a list's said "broke off after 1,860 bytes"). what names the
// request ("the answer to GET /metrics", "the list response of ...");
// cr counts what was read of the body. An error that is no cut (the body
// ended where HTTP says it ends, cr.Ended, or any other error) comes back
// as it was. Every reader of a body goes through it.
func BodyCut(what string, cr *countio.Reader, err error) error {
	if err == nil || cr.Ended || !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	return &ConnectionLostError{What: fmt.Sprintf("%s broke off after %s: the connection closed before the answer's end", what, text.Count(int(cr.N), "byte")), Err: err}
}
