// Package apiclient is the wire: the only package of the plugin that sends
// requests to the API server. It reads collections, objects and watches
// through the raw REST API, so the packages above it report what the server
// sent and not what a typed client made of it. It only ever issues get, list
// and watch requests, each exactly once: client-go's hidden retries are off.
package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
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
	AcceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	AcceptMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
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
	Meter(base, nil) // every body capped, also of a config that skipped Wrap
	base.APIPath = ""
	base.GroupVersion = nil
	base.NegotiatedSerializer = statusCodecs.WithoutConversion()
	if base.QPS == 0 {
		// Paged lists of large collections need more than client-go's default
		// 5 QPS (kubectl's too: it raises only discovery's, to 50 and a
		// burst of 300); probe applies its own, lower limit.
		base.QPS, base.Burst = ClientQPS, ClientBurst
	}
	short, err := restClientFor(base)
	if err != nil {
		return nil, err
	}
	streamCfg := rest.CopyConfig(base)
	streamCfg.Timeout = 0
	stream, err := restClientFor(streamCfg)
	if err != nil {
		return nil, err
	}
	return &Client{config: base, short: short, stream: stream}, nil
}

// ClientQPS and ClientBurst are the REST client's own client-side rate
// limit: a burst of 100 requests, then 50 a second. A paged list of more
// than 100 pages waits for it (a --limit 1 walk of 300 objects: 4 s), and
// says so (RateLimit, listing.WalkResult.Paced).
const (
	ClientQPS   = 50
	ClientBurst = 100
)

// RateLimit is a client-side rate limit: QPS requests a second after a
// burst of Burst.
type RateLimit struct {
	QPS   float32 `json:"qps"`
	Burst int     `json:"burst"`
}

// RequestTimeout is the time bound of each request but a watch
// (--request-timeout; 0: none).
func (c *Client) RequestTimeout() time.Duration { return c.config.Timeout }

// RateLimit is the REST client's own rate limit, which paces every request
// the client sends (a Budget's --qps paces on top of it).
func (c *Client) RateLimit() RateLimit {
	burst := c.config.Burst
	if burst == 0 {
		burst = rest.DefaultBurst // as restClientFor builds it
	}
	return RateLimit{QPS: c.config.QPS, Burst: burst}
}

// restClientFor builds a REST client whose http.Client follows no
// redirect (see RefuseRedirects), paced by its own deadlineLimiter (the
// token bucket client-go would build from QPS and Burst, whose refusal of a
// wait past the deadline is a typed error).
func restClientFor(cfg *rest.Config) (rest.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		burst := cfg.Burst
		if burst == 0 {
			burst = rest.DefaultBurst // as client-go would
		}
		cfg.RateLimiter = newRateLimiter(cfg.QPS, burst, nil, fmt.Sprintf("the plugin's own rate limit of %g requests a second", cfg.QPS))
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot build API client: %w", err)
	}
	hc.CheckRedirect = refuseRedirect
	c, err := rest.UnversionedRESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("cannot build API client: %w", err)
	}
	return c, nil
}

// CheckDiscovery reads /api and /apis uncached: the real error when cached
// discovery came back empty.
func (c *Client) CheckDiscovery(ctx context.Context) error {
	for _, p := range []string{"/api", "/apis"} {
		if err := c.short.Get().AbsPath(p).Do(withKind(ctx, KindDiscovery)).Error(); err != nil {
			return capError(err)
		}
	}
	return nil
}

// Get sends one GET of path with query q and returns the body as it
// arrives. A watch (q has watch=1) goes through the client without a
// whole-request timeout and is bounded by ctx. The request is sent exactly
// once: client-go would otherwise repeat a 504 or 429 that carries
// Retry-After up to ten times (a list from a future RV then takes ~43 s
// instead of ~3 s), behind the caller's back and its request budget. An
// error status comes back as an API error with the server's Status (message
// and causes), which Stream decodes and Do().Raw() would not. A path that
// could mean another one ("..", an invalid segment) is never sent. The
// body is read through the cap of its kind (bodyKind): past it, a read
// fails with a *BodyTooLargeError.
func (c *Client) Get(ctx context.Context, path string, q url.Values, accept string) (io.ReadCloser, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	kind := bodyKind(path, q, accept)
	client := c.short
	if kind == KindWatch {
		client = c.stream
	}
	ctx = withKind(ctx, kind)
	req := client.Get().AbsPath(path).SetHeader("Accept", accept).MaxRetries(0)
	for k, vs := range q {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	body, err := req.Stream(ctx)
	return body, answeredBy(kind, q, capError(err))
}

// capError is err, or the *BodyTooLargeError in its chain: client-go wraps
// a body it could not read in "unexpected error when reading response
// body. Please retry. Original error: ...", and the cap's own line says
// more (the request, the limit and the fix), and not to retry. A request
// the rate limit did not send is its *RateWaitError alone, without
// client-go's "client rate limiter Wait returned an error: ".
func capError(err error) error {
	var big *BodyTooLargeError
	if errors.As(err, &big) {
		return big
	}
	var rw *RateWaitError
	if errors.As(err, &rw) {
		return rw
	}
	return withoutClosingPeriod(ShortRequest(err))
}

// withoutClosingPeriod is err without the full stop its text ends with (a
// server's message often has one: "Too many requests, please try again
// later."): every line goes on after an error with ": " (what it means, a
// fix), and ".:" reads as a typo, as diagnose.StatusLine leaves a
// Status's period out (adversary try 40: "later.: retry later" above
// "later (not marked ...)" of the same answer). It unwraps to err.
func withoutClosingPeriod(err error) error {
	if err == nil {
		return nil
	}
	if s := err.Error(); strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "..") {
		return &shortRequestError{err: err, text: strings.TrimSuffix(s, ".")}
	}
	return err
}

// bodyKind is what Get asks for, and so the cap of its answer.
func bodyKind(path string, q url.Values, accept string) BodyKind {
	switch {
	case q.Get("watch") != "":
		return KindWatch
	case path == "/version":
		return KindVersion
	case path == "/metrics":
		return KindMetrics
	case accept == AcceptMetadata:
		return KindObject
	}
	return KindList
}

// GetMetrics sends one GET /metrics, asking only for the metric families
// named (name[]=...; none: every family) and returns the text as it
// arrives, read through the /metrics cap (LimitMetrics). kube-apiserver
// v1.37.2 (client_golang 1.24) sends only the families asked for; older
// servers ignore name[] and send them all, so the caller parses what it
// needs either way. A 403 (it needs the non-resource "get" of /metrics)
// comes back as an API error.
func (c *Client) GetMetrics(ctx context.Context, names ...string) (io.ReadCloser, error) {
	q := url.Values{}
	for _, n := range names {
		q.Add("name[]", n)
	}
	return c.Get(ctx, "/metrics", q, "text/plain")
}
