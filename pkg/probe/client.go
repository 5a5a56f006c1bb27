// Package probe is the only package of the plugin that talks to the API
// server. It reads collections and watches through the raw REST API, so it
// reports what the server sent and not what a typed client made of it.
// It only ever issues get, list and watch requests.
package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// Accept headers. Asking for PartialObjectMetadata(List) makes the server
// send metadata only, which is all this plugin needs; servers that cannot
// (some aggregated APIs) fall back to plain JSON objects, which decode alike.
const (
	acceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

// Client issues raw REST requests. Requests use the --request-timeout of the
// kubeconfig flags; watches use a client without a whole-request timeout and
// are bounded by their context instead.
type Client struct {
	config *rest.Config
	short  rest.Interface
	stream rest.Interface
}

// statusCodecs decode metav1.Status bodies into *errors.StatusError.
var statusCodecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(s)
}()

// NewClient builds a client from a rest.Config (normally from the standard
// kubectl flags).
func NewClient(cfg *rest.Config) (*Client, error) {
	base := rest.CopyConfig(cfg)
	base.APIPath = ""
	base.GroupVersion = nil
	base.NegotiatedSerializer = statusCodecs.WithoutConversion()
	if base.QPS == 0 {
		// Paged lists of large collections need more than client-go's default
		// 5 QPS; probe applies its own, lower limit.
		base.QPS, base.Burst = 50, 100
	}
	short, err := rest.UnversionedRESTClientFor(base)
	if err != nil {
		return nil, fmt.Errorf("cannot build API client: %w", err)
	}
	streamCfg := rest.CopyConfig(base)
	streamCfg.Timeout = 0
	stream, err := rest.UnversionedRESTClientFor(streamCfg)
	if err != nil {
		return nil, fmt.Errorf("cannot build API client: %w", err)
	}
	return &Client{config: base, short: short, stream: stream}, nil
}

// NewClientFromInterfaces is for callers that already have REST clients.
func NewClientFromInterfaces(short, stream rest.Interface) *Client {
	return &Client{short: short, stream: stream}
}

// RequestTimeout is the --request-timeout in force (0 = none).
func (c *Client) RequestTimeout() time.Duration {
	if c.config == nil {
		return 0
	}
	return c.config.Timeout
}

// ServerVersion returns the gitVersion from /version.
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	body, err := c.short.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("cannot decode /version: %w", err)
	}
	return v.GitVersion, nil
}

// CheckDiscovery reads /api and /apis uncached: the real error when cached
// discovery came back empty.
func (c *Client) CheckDiscovery(ctx context.Context) error {
	for _, p := range []string{"/api", "/apis"} {
		if err := c.short.Get().AbsPath(p).Do(ctx).Error(); err != nil {
			return err
		}
	}
	return nil
}

// getCollection builds a GET of the target's collection with query q and
// the given Accept header.
func getCollection(client rest.Interface, t Target, q url.Values, accept string) *rest.Request {
	req := client.Get().AbsPath(t.CollectionPath()).SetHeader("Accept", accept)
	for k, vs := range q {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	return req
}
