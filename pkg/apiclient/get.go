package apiclient

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
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
		if cut := BodyCut("the answer to GET "+p, cr, err); cut != err {
			return ItemMeta{}, cut
		}
		return ItemMeta{}, Undecodable("cannot decode "+p, err)
	}
	return obj.Metadata, nil
}
