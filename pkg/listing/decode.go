package listing

import (
	"encoding/json"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// MaxPageItems bounds the items of one list page. A page is decoded one
// item at a time (decodePage), so a walk's memory is one item whatever the
// page holds; the bound is for the callers that keep a page's items (a
// relist's state, an exact list) and for the time a server can make the
// plugin spend on a page. A real item of a metadata-only list is at least
// some 300 bytes (name, namespace, uid, resourceVersion, creation time and
// managedFields), so the 256 MiB page cap lets through less than a million
// of them; a page that holds more is made of items no API server sends.
const MaxPageItems = 1_000_000

// pageHead is the list metadata of a page.
type pageHead struct {
	ResourceVersion    string `json:"resourceVersion"`
	Continue           string `json:"continue"`
	RemainingItemCount *int64 `json:"remainingItemCount"`
}

// decodePage reads a list page as it streams: its metadata, and each item
// of "items" decoded alone into its metadata and handed to each (with its
// index), never kept here. The memory it takes is one item, whatever the
// page holds; more than MaxPageItems items is a *apiclient.BoundError (the
// caller names the request).
func decodePage(r io.Reader, max int, each func(i int, it ItemMeta)) (pageHead, int, error) {
	var head pageHead
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{', "a list page"); err != nil {
		return head, 0, err
	}
	n, hasItems := 0, false
	status := map[string]json.RawMessage{} // the fields a Status has
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return head, n, err
		}
		key, _ := tok.(string)
		switch key {
		case "metadata":
			err = dec.Decode(&head)
		case "items":
			hasItems = true
			n, err = decodeItems(dec, max, each)
		case "kind", "status", "message", "reason", "code", "details":
			var raw json.RawMessage
			err = dec.Decode(&raw)
			status[key] = raw
		default:
			var skip json.RawMessage // apiVersion: read and dropped
			err = dec.Decode(&skip)
		}
		if err != nil {
			return head, n, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return head, n, err
	}
	var kind, st string
	_ = json.Unmarshal(status["kind"], &kind)
	_ = json.Unmarshal(status["status"], &st)
	if diagnose.IsStatusObject(kind, st, hasItems) {
		return head, n, statusPageError(status)
	}
	if broken := diagnose.BrokenListPage(kind, st, hasItems); broken != "" {
		return head, n, &apiclient.UnreadableAnswerError{What: broken}
	}
	return head, n, nil
}

// statusPageError is the error of a list answer that is a Status: what
// client-go makes of one (rest.Result: a Status that is not a success is
// its error, even in a 200), so that a 410 sent so is an Expired.
func statusPageError(fields map[string]json.RawMessage) error {
	raw, _ := json.Marshal(fields)
	var st metav1.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return &apiclient.UnreadableAnswerError{What: "the list answer was a Status that does not decode", Err: err}
	}
	if st.Status == metav1.StatusSuccess {
		return &apiclient.UnreadableAnswerError{What: "the list answer was a Status of success, not a list"}
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// decodeItems decodes the "items" array (null or [...]) one item at a time.
func decodeItems(dec *json.Decoder, max int, each func(int, ItemMeta)) (int, error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return 0, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return 0, fmt.Errorf("the items of a list page are not an array (%v)", tok)
	}
	n := 0
	for dec.More() {
		if n >= max {
			if max < MaxPageItems {
				return n, &apiclient.BoundError{
					Over:  "holds more than " + text.Count(max, "item"),
					Bound: "the most the plugin reads of one page of a paged list, whatever the limit the request asked for",
					Fix:   "the API server sends at most the limit there (an aggregated API that ignores it, far fewer than this): check the kubeconfig's server address and any proxy in front of it",
				}
			}
			return n, &apiclient.BoundError{
				Over:  "holds more than " + text.Count(MaxPageItems, "item"),
				Bound: "the most the plugin reads of one list page",
				Fix:   "no API server sends a page of that many items (they would take over 256 MiB): check the kubeconfig's server address and any proxy in front of it",
			}
		}
		var it struct {
			Metadata ItemMeta `json:"metadata"`
		}
		if err := dec.Decode(&it); err != nil {
			return n, err
		}
		if each != nil {
			each(n, it.Metadata)
		}
		n++
	}
	_, err = dec.Token() // ]
	return n, err
}

func expectDelim(dec *json.Decoder, want json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("%s is not a JSON object (it starts with %v)", what, tok)
	}
	return nil
}
