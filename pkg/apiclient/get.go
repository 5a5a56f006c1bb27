package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// GetObjectMeta reads one object's metadata (a plain GET, metadata only). It
// answers "is the object still there?" for a DELETED event seen through a
// selector; a missing object comes back as a NotFound API error.
func (c *Client) GetObjectMeta(ctx context.Context, t Target, namespace, name string) (ItemMeta, error) {
	p := t.ObjectPath(namespace, name)
	body, err := c.Get(ctx, p, url.Values{}, AcceptMetadata)
	if err != nil {
		return ItemMeta{}, err
	}
	defer body.Close()
	var obj struct {
		Metadata ItemMeta `json:"metadata"`
	}
	cr := &countio.Reader{R: body}
	if err := json.NewDecoder(cr).Decode(&obj); err != nil {
		if cr.Ended && errors.Is(err, io.ErrUnexpectedEOF) {
			// The answer ended where HTTP says it ends, mid-JSON: it
			// came whole, and is no object; nothing broke (a break of
			// the connection is the transport's BodyCutError).
			return ItemMeta{}, &UnreadableAnswerError{What: fmt.Sprintf("the answer to GET %s ended after %s, before its object did", p, text.Count(cr.N, "byte"))}
		}
		return ItemMeta{}, Undecodable("cannot decode "+p, err)
	}
	return obj.Metadata, nil
}
