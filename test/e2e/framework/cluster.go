package framework

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Tokens of the static users every cluster has.
const (
	AdminToken = "watchrv-admin-token"  // user "admin" in system:masters
	UserToken  = "watchrv-nobody-token" // user "nobody" with no grants
	// ThrottledToken is user "throttled", whom RejectAllFlowSchema sends to
	// a priority level with no seats (every request gets 429).
	ThrottledToken = "watchrv-throttled-token"
	// HarnessUserAgent marks the harness's own requests (writes included) in
	// the audit log, apart from the plugin's.
	HarnessUserAgent = "watchrv-e2e-harness"
)

// Options configure one cluster.
type Options struct {
	// APIServer is applied to the first API server.
	APIServer APIServerOptions
	// Dir is where data, certificates and logs go (a temp dir when empty).
	Dir string
	// Logf receives progress lines (t.Logf in tests).
	Logf func(format string, args ...any)
}

// APIServerOptions configure one kube-apiserver.
type APIServerOptions struct {
	// WatchCacheSizes is passed as --watch-cache-sizes (e.g. "configmaps#0").
	WatchCacheSizes string
	// DisableWatchCache passes --watch-cache=false.
	DisableWatchCache bool
	// CompactionInterval is --etcd-compaction-interval; 0 disables the
	// server's own compaction so that tests compact deterministically.
	CompactionInterval time.Duration
	// ExtraArgs are appended last.
	ExtraArgs []string

	// The fields below let StartHA put several servers on one port and one
	// etcd; their zero values keep the single-server defaults.

	// BindAddress is --bind-address (127.0.0.1 when empty); it must be a
	// loopback address.
	BindAddress string
	// AdvertiseAddress is --advertise-address (the bind address when empty).
	AdvertiseAddress string
	// Port is --secure-port (a free port when 0).
	Port int
	// EtcdURL is --etcd-servers (the cluster's etcd when empty), e.g. a
	// pausable link to it.
	EtcdURL string
	// EndpointReconciler is --endpoint-reconciler-type ("none" when empty).
	EndpointReconciler string
	// Serving, when set, replaces the self-signed serving certificate.
	Serving *ServingCert
	// Version, when set, runs that minor's kube-apiserver of the matrix
	// ("v1.37") instead of the cluster's: a server of another version on
	// the same storage (an upgrade or downgrade in place).
	Version string
}

// ServingCert is a serving certificate signed by a CA the clients trust.
type ServingCert struct {
	CAFile, CertFile, KeyFile string
}

// Cluster is one etcd and one or more kube-apiservers on loopback.
type Cluster struct {
	Dir string
	// EtcdURL is the storage's client URL: etcd's, or kine's etcd API.
	EtcdURL    string
	APIServers []*APIServer
	// Kubeconfig is an admin kubeconfig for the first API server;
	// UserKubeconfig is the same for the user with no grants.
	Kubeconfig     string
	UserKubeconfig string

	// Cell is the server configuration: version, storage (etcd or kine),
	// watch cache (v1.37/etcd for Start).
	Cell Cell

	bins clusterBinaries
	etcd *process // etcd, or kine
	logf func(string, ...any)
	own  bool
}

// APIServer is one running kube-apiserver.
type APIServer struct {
	Index    int
	URL      string
	CAFile   string
	AuditLog string
	LogPath  string
	proc     *process
}

// Start starts etcd and one kube-apiserver and waits until it is ready. On
// error everything started so far is stopped.
func Start(ctx context.Context, opts Options) (c *Cluster, err error) {
	bin, err := Binaries()
	if err != nil {
		return nil, err
	}
	return start(ctx, dirBinaries(bin), Cell{Version: "v1.37", Storage: "etcd", WatchCache: !opts.APIServer.DisableWatchCache}, opts)
}

// clusterBinaries are the storage and kube-apiserver binaries a cluster runs.
type clusterBinaries struct {
	etcd      string // etcd, or kine when kine is set
	apiserver string
	kine      bool
}

// dirBinaries are the etcd and kube-apiserver of build.sh's directory.
func dirBinaries(dir string) clusterBinaries {
	return clusterBinaries{etcd: filepath.Join(dir, "etcd"), apiserver: filepath.Join(dir, "kube-apiserver")}
}

func start(ctx context.Context, bins clusterBinaries, cell Cell, opts Options) (c *Cluster, err error) {
	c, err = startStorageOnly(ctx, bins, opts)
	if err != nil {
		return nil, err
	}
	c.Cell = cell
	started := c // a failed start returns a nil Cluster: stop what it started
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	if _, err := c.AddAPIServer(ctx, opts.APIServer); err != nil {
		return nil, err
	}
	a := c.APIServers[0]
	if c.Kubeconfig, err = c.WriteKubeconfig("admin.kubeconfig", a, AdminToken); err != nil {
		return nil, err
	}
	if c.UserKubeconfig, err = c.WriteKubeconfig("nobody.kubeconfig", a, UserToken); err != nil {
		return nil, err
	}
	shareDiscoveryCache(c.Dir, c.Kubeconfig, c.UserKubeconfig)
	return c, nil
}

// startEtcdOnly writes the static files and starts etcd: a cluster with no
// API server yet. On error everything started so far is stopped.
func startEtcdOnly(ctx context.Context, bin string, opts Options) (c *Cluster, err error) {
	return startStorageOnly(ctx, dirBinaries(bin), opts)
}

// startStorageOnly writes the static files and starts etcd or kine.
func startStorageOnly(ctx context.Context, bins clusterBinaries, opts Options) (c *Cluster, err error) {
	c = &Cluster{Dir: opts.Dir, bins: bins, logf: opts.Logf}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "watchrv-cluster-"); err != nil {
			return nil, err
		}
		c.own = true
	}
	started := c // a failed start returns a nil Cluster: stop what it started
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	if err := c.writeStaticFiles(); err != nil {
		return nil, err
	}
	if bins.kine {
		err = c.startKine(ctx)
	} else {
		err = c.startEtcd(ctx)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops every process and removes the directory it created.
func (c *Cluster) Stop() {
	for _, a := range c.APIServers {
		if a.proc != nil {
			a.proc.stop(10 * time.Second)
		}
	}
	if c.etcd != nil {
		c.etcd.stop(10 * time.Second)
	}
	if c.own && os.Getenv("WATCHRV_KEEP_CLUSTER_DIR") == "" {
		os.RemoveAll(c.Dir)
	}
}

func (c *Cluster) writeStaticFiles() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	files := map[string]string{
		"sa.key":     string(pemKey),
		"tokens.csv": fmt.Sprintf("%s,admin,uid-admin,\"system:masters\"\n%s,nobody,uid-nobody\n%s,throttled,uid-throttled\n", AdminToken, UserToken, ThrottledToken),
		// Metadata level for every request: verb, user, user agent, URI.
		"audit-policy.yaml": "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [\"RequestReceived\"]\nrules:\n- level: Metadata\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(content), 0o600); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) startEtcd(ctx context.Context) error {
	cport, err := freePort()
	if err != nil {
		return err
	}
	pport, err := freePort()
	if err != nil {
		return err
	}
	c.EtcdURL = fmt.Sprintf("http://127.0.0.1:%d", cport)
	peer := fmt.Sprintf("http://127.0.0.1:%d", pport)
	c.etcd = &process{
		name: "etcd", bin: c.bins.etcd, logPath: filepath.Join(c.Dir, "etcd.log"),
		args: []string{
			"--name", "default", "--data-dir", filepath.Join(c.Dir, "etcd-data"),
			"--listen-client-urls", c.EtcdURL, "--advertise-client-urls", c.EtcdURL,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", "default=" + peer,
			"--unsafe-no-fsync", "--log-level", "warn",
		},
	}
	if err := c.etcd.start(); err != nil {
		return err
	}
	c.logf("etcd started at %s", c.EtcdURL)
	return c.waitFor(ctx, c.etcd, 30*time.Second, func() bool {
		resp, err := http.Get(c.EtcdURL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// AddAPIServer starts one more kube-apiserver on the same etcd.
func (c *Cluster) AddAPIServer(ctx context.Context, o APIServerOptions) (*APIServer, error) {
	a, err := c.newAPIServer(o)
	if err != nil {
		return nil, err
	}
	if err := c.startAPIServer(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// newAPIServer adds API server number len(c.APIServers) without starting
// it, so that StartHA can start several at once.
func (c *Cluster) newAPIServer(o APIServerOptions) (*APIServer, error) {
	port := o.Port
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	bind := o.BindAddress
	if bind == "" {
		bind = "127.0.0.1"
	}
	if ip := net.ParseIP(bind); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("bind address %q is not a loopback address", bind)
	}
	advertise := o.AdvertiseAddress
	if advertise == "" {
		advertise = bind
	}
	etcdURL := o.EtcdURL
	if etcdURL == "" {
		etcdURL = c.EtcdURL
	}
	reconciler := o.EndpointReconciler
	if reconciler == "" {
		reconciler = "none"
	}
	i := len(c.APIServers)
	dir := filepath.Join(c.Dir, fmt.Sprintf("apiserver-%d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	a := &APIServer{
		Index:    i,
		URL:      "https://" + net.JoinHostPort(bind, strconv.Itoa(port)),
		CAFile:   filepath.Join(dir, "certs", "apiserver.crt"),
		AuditLog: filepath.Join(dir, "audit.log"),
		LogPath:  filepath.Join(dir, "kube-apiserver.log"),
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=" + bind, "--advertise-address=" + advertise, fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(c.Dir, "sa.key"),
		"--service-account-signing-key-file=" + filepath.Join(c.Dir, "sa.key"),
		"--token-auth-file=" + filepath.Join(c.Dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--audit-policy-file=" + filepath.Join(c.Dir, "audit-policy.yaml"),
		"--audit-log-path=" + a.AuditLog,
		"--audit-log-mode=blocking",
		fmt.Sprintf("--etcd-compaction-interval=%s", o.CompactionInterval),
		"--endpoint-reconciler-type=" + reconciler,
		"--profiling=false",
	}
	if o.Serving != nil {
		a.CAFile = o.Serving.CAFile
		args = append(args, "--tls-cert-file="+o.Serving.CertFile, "--tls-private-key-file="+o.Serving.KeyFile)
	}
	if o.DisableWatchCache {
		args = append(args, "--watch-cache=false")
	}
	if o.WatchCacheSizes != "" {
		args = append(args, "--watch-cache-sizes="+o.WatchCacheSizes)
	}
	args = append(args, o.ExtraArgs...)
	bin := c.bins.apiserver
	if o.Version != "" {
		bins, err := Cell{Version: o.Version, Storage: "etcd"}.binaries()
		if err != nil {
			return nil, err
		}
		bin = bins.apiserver
	}
	a.proc = &process{name: fmt.Sprintf("kube-apiserver-%d", i), bin: bin, args: args, logPath: a.LogPath}
	c.APIServers = append(c.APIServers, a)
	return a, nil
}

func (c *Cluster) startAPIServer(ctx context.Context, a *APIServer) error {
	start := time.Now()
	if err := a.proc.start(); err != nil {
		return err
	}
	insecure := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	err := c.waitFor(ctx, a.proc, 90*time.Second, func() bool {
		req, _ := http.NewRequest(http.MethodGet, a.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		resp, err := insecure.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver %d did not become ready: %w; last log lines:\n%s", a.Index, err, tailFile(a.LogPath, 15))
	}
	c.logf("kube-apiserver %d ready at %s in %s", a.Index, a.URL, time.Since(start).Round(time.Millisecond))
	return nil
}

// RestartAPIServer stops API server i and starts it again with the same
// flags and port; its watch cache starts anew from a fresh list.
func (c *Cluster) RestartAPIServer(ctx context.Context, i int) error {
	a := c.APIServers[i]
	a.proc.stop(15 * time.Second)
	return c.startAPIServer(ctx, a)
}

// StopAPIServer stops API server i (for connection-refused tests).
func (c *Cluster) StopAPIServer(i int) { c.APIServers[i].proc.stop(15 * time.Second) }

// PauseAPIServer freezes API server i (SIGSTOP) until ResumeAPIServer.
func (c *Cluster) PauseAPIServer(i int) error { return c.APIServers[i].proc.signal(syscall.SIGSTOP) }

// ResumeAPIServer continues a paused API server (SIGCONT).
func (c *Cluster) ResumeAPIServer(i int) error { return c.APIServers[i].proc.signal(syscall.SIGCONT) }

func (c *Cluster) waitFor(ctx context.Context, p *process, timeout time.Duration, ready func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if ready() {
			return nil
		}
		if !p.running() {
			return fmt.Errorf("%s exited: %v; last log lines:\n%s", p.name, p.exitErr, tailFile(p.logPath, 15))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s", p.name, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return lastLines(strings.TrimRight(string(b), "\n"), n)
}
