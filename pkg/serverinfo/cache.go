package serverinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// CacheTTL is how long a fact read from /metrics is reused: the gates and
// whether a resource has a watch cache change only when the API server
// restarts with other flags, while even the three families asked for cost
// the server a gather of all its metrics (the filter is applied after it:
// tens of milliseconds, more than the list of a small collection). kubectl
// caches discovery the same way (6 h); ten minutes bounds how long a
// restart with another --watch-cache goes unseen (a restart keeps the
// serving certificate, the one thing that tells servers apart for free),
// and the Server line says when each fact was read.
const CacheTTL = 10 * time.Minute

// maxServersKept bounds how many servers' facts one address keeps: the
// API servers behind a load balancer (each has its own serving
// certificate), and a few clusters created anew at the same address.
const maxServersKept = 8

// Cache keeps the facts of the servers behind one address on disk, beside
// kubectl's discovery cache (CACHE_DIR/watchrv/HOST_PORT-HASH/serverinfo.json).
// Only facts read from /metrics are kept, each with the time it was read,
// for the server they were read from: its serving certificate and its
// gitVersion (a server known by its address alone outlived a change of
// server at that address: fresh user try 22 #2). With them each resource
// keeps the RV of a consistent list of it seen with its facts: an RV below
// it is another storage's (SeenRV).
type Cache struct {
	// Dir is kubectl's cache directory (--cache-dir, KUBECACHEDIR,
	// ~/.kube/cache); Server is the server's URL (the file's key).
	Dir, Server string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// instance is what identifies the server a fact was read from: the
// SHA-256 of its serving certificate ("" over plain HTTP) and its
// gitVersion.
type instance struct {
	Cert, GitVersion string
}

// cacheFile is the file's content: the facts of each server seen at the
// address whose gates are younger than CacheTTL, the newest read first.
type cacheFile struct {
	Servers []*serverFacts `json:"servers"`
}

// serverFacts are one server's facts.
type serverFacts struct {
	Cert        string          `json:"servingCert"`
	GitVersion  string          `json:"gitVersion"`
	GatesReadAt time.Time       `json:"gatesReadAt"`
	Gates       map[string]bool `json:"gatesSeen"`
	// Resources are, per resource asked for ("resource.group"), its facts.
	Resources map[string]*resourceFacts `json:"resources"`
}

// resourceFacts are what /metrics showed of one resource, and when.
type resourceFacts struct {
	// WatchCache is whether it had a watch cache; Stored whether the
	// server counted stored objects of it (it serves it itself: serves.go).
	WatchCache Tri       `json:"watchCache"`
	Stored     Tri       `json:"stored"`
	ReadAt     time.Time `json:"readAt"`
	// ListRV is the RV of the first consistent list of it made with these
	// facts, at ListRVAt (SeenRV); 0 before one.
	ListRV   uint64    `json:"listRV,omitempty"`
	ListRVAt time.Time `json:"listRVAt,omitempty"`
}

func (s *serverFacts) id() instance { return instance{s.Cert, s.GitVersion} }

// unsafeFileChars are what a directory's name keeps of a host only as "_".
var unsafeFileChars = regexp.MustCompile(`[^\w.]`)

// maxReadableKey bounds the readable part of a cache directory's name.
const maxReadableKey = 64

// path is the server's file: always one directory below
// CACHE_DIR/watchrv. The directory's name is the server's host, for the
// reader (bounded, each character but a letter, digit, "_" or "." as
// "_"), then "-" and a hash of the whole URL: a name that is never "."
// or "..", holds no separator, fits any file system, and is one server's
// alone (a host of ".." through a proxy-url wrote CACHE_DIR/serverinfo.json:
// adversary try 23 F4; "a:b" and "a_b" shared one).
func (c *Cache) path() string {
	host := strings.TrimPrefix(strings.TrimPrefix(c.Server, "https://"), "http://")
	readable := unsafeFileChars.ReplaceAllString(host, "_")
	if len(readable) > maxReadableKey {
		readable = readable[:maxReadableKey]
	}
	sum := sha256.Sum256([]byte(c.Server))
	return filepath.Join(c.Dir, "watchrv", readable+"-"+hex.EncodeToString(sum[:8]), "serverinfo.json")
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Cache) usable() bool { return c != nil && c.Dir != "" && c.Server != "" }

// fresh: t is no older than CacheTTL (and not in the future).
func (c *Cache) fresh(t time.Time) bool {
	age := c.now().Sub(t)
	return age >= 0 && age <= CacheTTL
}

// read is the file's servers whose gates are still fresh (none when there
// is no file, it cannot be read, or it is of an earlier release).
func (c *Cache) read() *cacheFile {
	f := &cacheFile{}
	if !c.usable() {
		return f
	}
	b, err := os.ReadFile(c.path())
	if err != nil || len(b) > 1<<20 || json.Unmarshal(b, f) != nil {
		return &cacheFile{}
	}
	kept := f.Servers[:0]
	for _, s := range f.Servers {
		if s != nil && s.GitVersion != "" && c.fresh(s.GatesReadAt) && len(kept) < maxServersKept {
			kept = append(kept, s)
		}
	}
	f.Servers = kept
	return f
}

// find is the facts of the server id, nil when none are kept.
func (f *cacheFile) find(id instance) *serverFacts {
	for _, s := range f.Servers {
		if s.id() == id {
			return s
		}
	}
	return nil
}

// load is the kept facts of the server id, nil when there are none.
func (c *Cache) load(id instance) *serverFacts {
	if id.GitVersion == "" {
		return nil
	}
	return c.read().find(id)
}

// facts is what the server's kept facts hold for resource ("" for none),
// with when the resource's fact was read (zero for ""): ok is false when
// it was never asked for (a CRD created since, say) or its fact is older
// than CacheTTL.
func (c *Cache) facts(s *serverFacts, resource string) (m *MetricsFacts, resourceReadAt time.Time, ok bool) {
	if s == nil {
		return nil, time.Time{}, false
	}
	m = &MetricsFacts{Gates: s.Gates, WatchCache: Unknown, Stored: Unknown}
	if resource == "" {
		return m, time.Time{}, true
	}
	r := s.Resources[resource]
	if r == nil || !c.fresh(r.ReadAt) {
		return m, time.Time{}, false
	}
	m.WatchCache, m.Stored = r.WatchCache, r.Stored
	return m, r.ReadAt, r.WatchCache == Yes || r.WatchCache == No
}

// store keeps what was just read from /metrics of the server id: the
// gates, read now, and the resource's fact, read now; the server's other
// resources keep theirs, each with its own time.
func (c *Cache) store(id instance, resource string, m *MetricsFacts) {
	if !c.usable() || id.GitVersion == "" || m == nil || len(m.Gates) == 0 {
		return
	}
	f := c.read()
	s := f.find(id)
	if s == nil {
		s = &serverFacts{Cert: id.Cert, GitVersion: id.GitVersion}
	}
	now := c.now()
	s.Gates, s.GatesReadAt = m.Gates, now
	if s.Resources == nil {
		s.Resources = map[string]*resourceFacts{}
	}
	if resource != "" && m.WatchCache != Unknown {
		r := s.Resources[resource]
		if r == nil {
			r = &resourceFacts{}
		}
		// The RV seen stays: the same server, the same storage.
		r.WatchCache, r.Stored, r.ReadAt = m.WatchCache, m.Stored, now
		s.Resources[resource] = r
	}
	servers := []*serverFacts{s}
	for _, o := range f.Servers {
		if o != s {
			servers = append(servers, o)
		}
	}
	if len(servers) > maxServersKept {
		servers = servers[:maxServersKept]
	}
	f.Servers = servers
	c.write(f)
}

// write puts f in the file as kubectl's discovery cache does: private to
// the user, written whole (a temporary file renamed); a failure only costs
// the next run a read.
func (c *Cache) write(f *cacheFile) {
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	p := c.path()
	if os.MkdirAll(filepath.Dir(p), 0o750) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "serverinfo-*.json")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}
