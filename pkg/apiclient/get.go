package apiclient

import (
	"context"
	"encoding/json"
	"net/url"
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
	if err := json.NewDecoder(body).Decode(&obj); err != nil {
		return ItemMeta{}, Undecodable("cannot decode "+p, err)
	}
	return obj.Metadata, nil
}
