package diagnose

import (
	"encoding/json"
	"errors"

	"github.com/prometheus/common/expfmt"
)

// IsUnreadableAnswer: err is an answer that came whole but could not be
// read as what was asked (JSON that does not decode, a /metrics text that
// does not parse): what no API server sends, so a proxy or another server
// answered, or the server is broken. Its decoder's words alone ("text
// format parsing error in line 2") name neither the server nor the
// request.
func IsUnreadableAnswer(err error) bool {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		prom   expfmt.ParseError
		promP  *expfmt.ParseError
	)
	var marked interface{ UnreadableAnswer() }
	return errors.As(err, &marked) || errors.As(err, &syntax) || errors.As(err, &typ) || errors.As(err, &prom) || errors.As(err, &promP)
}
