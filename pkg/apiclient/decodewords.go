package apiclient

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Undecodable is err, the error of a decoder of an answer (what names the
// answer in the plugin's words: "an event that does not decode"), as an
// *UnreadableAnswerError, which tells it in the API's words
// (decodeWords) and which the commands name with the server and the
// request. Every decoder of JSON that came from outside gives its error
// here (or builds an *UnreadableAnswerError itself): encoding/json's own
// words name Go's types ("cannot unmarshal number into Go struct field
// eventFrame.object of type watchstream.wireObject"; adversary try 19 #4).
// Any other err (the body's read: a cap, a deadline, a connection that
// broke) has a class of its own and is returned as it is.
func Undecodable(what string, err error) error {
	var ue *UnreadableAnswerError
	if err == nil || !isDecodeError(err) || errors.As(err, &ue) {
		return err
	}
	return &UnreadableAnswerError{What: what, Err: err}
}

// isDecodeError: err is a decoder's, of JSON that came whole: not JSON,
// a value of another type than the field's, a time that is not RFC 3339.
func isDecodeError(err error) bool {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
		pe *time.ParseError
	)
	return errors.As(err, &te) || errors.As(err, &se) || errors.As(err, &pe) || strings.HasPrefix(err.Error(), timeNotString)
}

// timeNotString starts time.Time's UnmarshalJSON error of a value that is
// not a JSON string (it has no type of its own).
const timeNotString = "Time.UnmarshalJSON: "

// decodeWords is a decoder's error in the API's words: encoding/json
// names Go's types ("cannot unmarshal string into Go value of type
// int32"), which say nothing of the answer (adversary try 14).
func decodeWords(err error) string {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
		pe *time.ParseError
	)
	var ue *UnreadableAnswerError
	switch {
	case errors.As(err, &ue):
		return ue.Error() // already in the plugin's words, nested
	case errors.As(err, &te):
		where := "it"
		if te.Field != "" {
			where = strconv.Quote(text.Shorten(te.Field, 128))
		}
		return fmt.Sprintf("%s is %s, where the API has %s", where, jsonValue(te.Value), apiKind(te.Type))
	case errors.As(err, &se) && se.Offset == 0 && strings.HasPrefix(se.Error(), "unexpected end"):
		return "its body is empty" // json.Unmarshal of no bytes
	case errors.As(err, &se) && strings.HasPrefix(se.Error(), "unexpected end"):
		return "its JSON ends half way"
	case errors.As(err, &se):
		return fmt.Sprintf("it is not JSON (at byte %d)", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "its JSON ends half way"
	case errors.As(err, &pe):
		return fmt.Sprintf("the time %s is not in RFC 3339", strconv.Quote(text.Shorten(pe.Value, 64)))
	case strings.HasPrefix(err.Error(), timeNotString):
		return "a time is not a JSON string, where the API has an RFC 3339 time (a string)"
	}
	return err.Error()
}

// jsonValue is the JSON value encoding/json names in an
// *json.UnmarshalTypeError ("number", "number 99999999999", "bool").
func jsonValue(v string) string {
	switch {
	case v == "bool":
		return "JSON true or false"
	case strings.HasPrefix(v, "number "):
		return "the JSON number " + text.Shorten(strings.TrimPrefix(v, "number "), 32)
	}
	return "a JSON " + text.Shorten(v, 32)
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	textUnmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// apiKind is the API's name of what a Go type is decoded from: a
// number's range where it has one, so that a number out of it is never
// "a number, where the API has a number" (adversary try 19 #4: a Status
// "code" of 99999999999).
func apiKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return "an RFC 3339 time (a string)"
	case reflect.PointerTo(t).Implements(textUnmarshalType):
		return "a string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("a %d-bit integer", t.Bits())
	case reflect.Int:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer of 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string (base64)"
		}
		return "a list"
	case reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
