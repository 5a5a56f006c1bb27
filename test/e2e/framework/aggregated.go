package framework

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// Where the aggregated API is registered.
const (
	AggregatedServiceNamespace = "watchrv-aggregated"
	AggregatedServiceName      = "gadgets-api"
	// AggregatedAPIServiceName is the APIService's name (<version>.<group>).
	AggregatedAPIServiceName = ExtensionVersion + "." + ExtensionGroup
	// FrontProxyClientCN is the CN of the aggregator's client certificate,
	// the one name in --requestheader-allowed-names.
	FrontProxyClientCN = "front-proxy-client"
	// AggregatedEndpointIP is the ready endpoint of the Service's
	// EndpointSlice. With aggregator routing off (the default) the aggregator
	// only checks that a ready endpoint exists and dials the ClusterIP, so this
	// address (documentation range; the API server refuses loopback ones) is
	// never dialled.
	AggregatedEndpointIP = "198.51.100.10"
)

var apiServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// Aggregated is a real aggregated API for a cluster: the ExtensionServer on
// loopback, registered through an APIService whose Service the aggregator
// reaches through kube-apiserver's egress selector. The egress selector's
// `cluster` traffic goes as HTTP CONNECT over a Unix socket to Proxy, which
// maps the Service's <ClusterIP>:443 to the extension server and refuses
// every other target, so no packet leaves loopback.
//
// The egress and front-proxy flags must be given when the API server
// starts:
//
//	agg, err := NewAggregated("")
//	c, err := Start(ctx, Options{APIServer: APIServerOptions{ExtraArgs: agg.APIServerArgs()}})
//	err = agg.Register(ctx, c)
//
// or StartAggregatedT in a test, MainAggregated in a TestMain.
type Aggregated struct {
	// Dir holds the certificates, the egress configuration and the socket.
	Dir       string
	Extension *ExtensionServer
	Proxy     *ConnectProxy
	// SocketPath is the Unix socket the egress selector dials.
	SocketPath string

	servingCA []byte
	args      []string
	ownDir    bool

	mu     sync.Mutex
	target string // <ClusterIP>:443 once registered
}

// DefaultGadgets are the extension server's objects.
var DefaultGadgets = []Gadget{{Name: "gadget-a", ResourceVersion: 101}, {Name: "gadget-b", ResourceVersion: 102}, {Name: "gadget-c", ResourceVersion: 103}}

// NewAggregated writes the certificates and the egress configuration into
// dir (a new temp dir when empty) and starts the extension server and the
// CONNECT proxy. Close stops them.
func NewAggregated(dir string) (a *Aggregated, err error) {
	a = &Aggregated{Dir: dir}
	if a.Dir == "" {
		if a.Dir, err = os.MkdirTemp("", "watchrv-agg-"); err != nil {
			return nil, err
		}
		a.ownDir = true
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	frontCA, err := newCA("watchrv-front-proxy-ca")
	if err != nil {
		return nil, err
	}
	proxyClient, err := newClientCert(frontCA, FrontProxyClientCN)
	if err != nil {
		return nil, err
	}
	servingCA, err := newCA("watchrv-extension-ca")
	if err != nil {
		return nil, err
	}
	// The aggregator verifies the name <service>.<namespace>.svc; 127.0.0.1
	// lets a test reach the server directly too.
	serving, err := newServingCert(servingCA, "gadgets-api",
		[]string{AggregatedServiceName + "." + AggregatedServiceNamespace + ".svc"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		return nil, err
	}
	a.servingCA = servingCA.certPEM

	// A Unix socket path must fit in 108 bytes; a test's temp dir may not.
	a.SocketPath = filepath.Join(a.Dir, "egress.sock")
	if len(a.SocketPath) > 100 {
		short, err := os.MkdirTemp("", "watchrv-egress-")
		if err != nil {
			return nil, err
		}
		a.SocketPath = filepath.Join(short, "egress.sock")
	}
	egress := fmt.Sprintf(`apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport:
      uds:
        udsName: %s
`, a.SocketPath)
	files := map[string][]byte{
		"front-proxy-ca.crt":     frontCA.certPEM,
		"front-proxy-client.crt": proxyClient.certPEM,
		"front-proxy-client.key": proxyClient.keyPEM,
		"egress-selector.yaml":   []byte(egress),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(a.Dir, name), content, 0o600); err != nil {
			return nil, err
		}
	}
	a.args = []string{
		"--requestheader-client-ca-file=" + filepath.Join(a.Dir, "front-proxy-ca.crt"),
		"--requestheader-allowed-names=" + FrontProxyClientCN,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + filepath.Join(a.Dir, "front-proxy-client.crt"),
		"--proxy-client-key-file=" + filepath.Join(a.Dir, "front-proxy-client.key"),
		"--egress-selector-config-file=" + filepath.Join(a.Dir, "egress-selector.yaml"),
		"--enable-aggregator-routing=false",
	}

	if a.Extension, err = startExtensionServer(serving, frontCA, []string{FrontProxyClientCN}, DefaultGadgets); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", a.SocketPath)
	if err != nil {
		return nil, err
	}
	a.Proxy = StartConnectProxy(ln, a.route)
	return a, nil
}

// APIServerArgs are the kube-apiserver flags of the setup, for
// APIServerOptions.ExtraArgs (of every API server of the cluster).
func (a *Aggregated) APIServerArgs() []string { return append([]string(nil), a.args...) }

// ServiceTarget is the <ClusterIP>:443 the aggregator dials ("" before
// Register).
func (a *Aggregated) ServiceTarget() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.target
}

func (a *Aggregated) route(hostport string) (string, bool) {
	if t := a.ServiceTarget(); t != "" && hostport == t {
		return a.Extension.Addr(), true
	}
	return "", false
}

// Close stops the proxy and the extension server and removes what
// NewAggregated created.
func (a *Aggregated) Close() {
	if a.Proxy != nil {
		a.Proxy.Close()
	}
	if a.Extension != nil {
		a.Extension.Close()
	}
	if a.SocketPath != "" && filepath.Dir(a.SocketPath) != a.Dir {
		os.RemoveAll(filepath.Dir(a.SocketPath))
	}
	if a.ownDir && os.Getenv("WATCHRV_KEEP_CLUSTER_DIR") == "" {
		os.RemoveAll(a.Dir)
	}
}

// Register creates the namespace, the selector-less ClusterIP Service, its
// EndpointSlice and the APIService on c, then waits until the APIService is
// Available and every API server of c serves the group.
func (a *Aggregated) Register(ctx context.Context, c *Cluster) error {
	start := time.Now()
	cs, err := c.Clientset(0)
	if err != nil {
		return err
	}
	if err := CreateNamespace(ctx, cs, AggregatedServiceNamespace); err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: AggregatedServiceName},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{Port: 443, Protocol: corev1.ProtocolTCP}},
		},
	}
	got, err := cs.CoreV1().Services(AggregatedServiceNamespace).Create(ctx, svc, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = cs.CoreV1().Services(AggregatedServiceNamespace).Get(ctx, AggregatedServiceName, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("the aggregated API's Service: %w", err)
	}
	a.mu.Lock()
	a.target = net.JoinHostPort(got.Spec.ClusterIP, "443")
	a.mu.Unlock()

	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: AggregatedServiceName + "-static", Labels: map[string]string{
			discoveryv1.LabelServiceName: AggregatedServiceName,
			discoveryv1.LabelManagedBy:   "watchrv-e2e",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{AggregatedEndpointIP}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		// The Service's port is unnamed: the aggregator matches the name "".
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To(""), Port: ptr.To[int32](443), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(AggregatedServiceNamespace).Create(ctx, slice, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("the aggregated API's EndpointSlice: %w", err)
	}

	dyn, err := c.Dynamic(0)
	if err != nil {
		return err
	}
	apiService := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": AggregatedAPIServiceName},
		"spec": map[string]any{
			"group": ExtensionGroup, "version": ExtensionVersion,
			"service":              map[string]any{"namespace": AggregatedServiceNamespace, "name": AggregatedServiceName, "port": int64(443)},
			"caBundle":             a.servingCA, // []byte: base64 in JSON
			"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
		},
	}}
	if _, err := dyn.Resource(apiServicesGVR).Create(ctx, apiService, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("the APIService %s: %w", AggregatedAPIServiceName, err)
	}
	if err := a.waitAvailable(ctx, c, 90*time.Second); err != nil {
		return err
	}
	c.logf("APIService %s Available in %s (Service %s)", AggregatedAPIServiceName, time.Since(start).Round(time.Millisecond), a.ServiceTarget())
	for i := range c.APIServers {
		if err := a.waitServed(ctx, c.RESTConfig(i), 60*time.Second); err != nil {
			return fmt.Errorf("kube-apiserver %d: %w", i, err)
		}
	}
	c.logf("aggregated %s served by every API server after %s", GadgetsGVR.GroupResource(), time.Since(start).Round(time.Millisecond))
	return nil
}

// APIServiceAvailable returns the APIService's Available condition status
// ("True", "False", "Unknown", or "" when absent) and its message.
func APIServiceAvailable(ctx context.Context, c *Cluster, i int) (status, message string, err error) {
	dyn, err := c.Dynamic(i)
	if err != nil {
		return "", "", err
	}
	obj, err := dyn.Resource(apiServicesGVR).Get(ctx, AggregatedAPIServiceName, metav1.GetOptions{})
	if err != nil {
		return "", "", err
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, cond := range conds {
		m, _ := cond.(map[string]any)
		if m["type"] == "Available" {
			s, _ := m["status"].(string)
			msg, _ := m["message"].(string)
			return s, msg, nil
		}
	}
	return "", "", nil
}

func (a *Aggregated) waitAvailable(ctx context.Context, c *Cluster, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		status, msg, err := APIServiceAvailable(ctx, c, 0)
		if err == nil && status == "True" {
			return nil
		}
		last = fmt.Sprintf("status %q: %s (err %v)", status, msg, err)
		if time.Now().After(deadline) {
			return fmt.Errorf("APIService %s not Available after %s: %s; proxy saw %v, refused %v",
				AggregatedAPIServiceName, timeout, last, a.Proxy.Seen(), a.Proxy.Refused())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitServed waits until a list of gadgets through the API server of cfg
// succeeds: each API server's proxy handler learns of the availability on
// its own.
func (a *Aggregated) waitServed(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	url := cfg.Host + "/apis/" + ExtensionGroup + "/" + ExtensionVersion + "/namespaces/" + ExtensionNamespace + "/" + ExtensionResource
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("listing %s not served after %s: %v", GadgetsGVR.GroupResource(), timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
