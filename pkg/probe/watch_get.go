package probe

import (
	"context"
	"encoding/json"
	"fmt"
)

// GetObjectMeta reads one object's metadata (a plain GET, metadata only). It
// answers "is the object still there?" for a DELETED event seen through a
// selector; a missing object comes back as a NotFound API error.
func (c *Client) GetObjectMeta(ctx context.Context, t Target, namespace, name string) (ItemMeta, error) {
	body, err := c.short.Get().AbsPath(t.ObjectPath(namespace, name)).SetHeader("Accept", acceptMetadata).Do(ctx).Raw()
	if err != nil {
		return ItemMeta{}, err
	}
	var obj struct {
		Metadata ItemMeta `json:"metadata"`
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		return ItemMeta{}, fmt.Errorf("cannot decode %s: %w", t.ObjectPath(namespace, name), err)
	}
	return obj.Metadata, nil
}
