package serverinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// CacheTTL is how long facts read from /metrics are reused: the gates and
// whether a resource has a watch cache change only when the API server
// restarts with other flags, while even the three families asked for cost
// the server a gather of all its metrics (the filter is applied after it:
// tens of milliseconds, more than the list of a small collection). kubectl
// caches discovery the same way (6 h); ten minutes bounds how long a
// restart with another --watch-cache goes unseen, and the Server line says
// when the facts were read.
const CacheTTL = 10 * time.Minute

// Cache keeps the facts of each server on disk, beside kubectl's
// discovery cache (CACHE_DIR/watchrv/HOST_PORT/serverinfo.json). Only facts
// read from /metrics are kept, for the gitVersion they were read with: a
// server answering another version is read again.
type Cache struct {
	// Dir is kubectl's cache directory (--cache-dir, KUBECACHEDIR,
	// ~/.kube/cache); Server is the server's URL (the key).
	Dir, Server string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// cachedFacts is the file's content.
type cachedFacts struct {
	GitVersion string          `json:"gitVersion"`
	ReadAt     time.Time       `json:"readAt"`
	Gates      map[string]bool `json:"gatesSeen"`
	// WatchCache is, per resource asked for ("resource.group"), whether it
	// had a watch cache; Stored whether the server counted stored objects
	// of it (it serves it itself: serves.go).
	WatchCache map[string]Tri `json:"watchCache"`
	Stored     map[string]Tri `json:"stored,omitempty"`
}

var unsafeFileChars = regexp.MustCompile(`[^\w.]`)

func (c *Cache) path() string {
	host := strings.TrimPrefix(strings.TrimPrefix(c.Server, "https://"), "http://")
	return filepath.Join(c.Dir, "watchrv", unsafeFileChars.ReplaceAllString(host, "_"), "serverinfo.json")
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// load is the cached facts of the server for gitVersion, nil when there
// are none, they are older than CacheTTL, or for another version.
func (c *Cache) load(gitVersion string) *cachedFacts {
	if c == nil || c.Dir == "" || c.Server == "" || gitVersion == "" {
		return nil
	}
	b, err := os.ReadFile(c.path())
	if err != nil || len(b) > 1<<20 {
		return nil
	}
	var f cachedFacts
	if json.Unmarshal(b, &f) != nil || f.GitVersion != gitVersion {
		return nil
	}
	if age := c.now().Sub(f.ReadAt); age < 0 || age > CacheTTL {
		return nil
	}
	return &f
}

// facts is what the cache holds for resource ("" for none): ok is false
// when the resource was never asked for (a CRD created since, say).
func (f *cachedFacts) facts(resource string) (*MetricsFacts, bool) {
	if f == nil {
		return nil, false
	}
	m := &MetricsFacts{Gates: f.Gates, WatchCache: Unknown}
	if resource == "" {
		return m, true
	}
	tri, ok := f.WatchCache[resource]
	stored, storedKept := f.Stored[resource]
	m.WatchCache, m.Stored = tri, Unknown
	if storedKept {
		m.Stored = stored
	}
	// No watch cache says nothing without the count (a file of an
	// earlier release kept none): read again then.
	return m, ok && (tri == Yes || tri == No && storedKept)
}

// store keeps what was just read from /metrics, with what the file held
// for other resources (when it is still good).
func (c *Cache) store(gitVersion, resource string, m *MetricsFacts) {
	if c == nil || c.Dir == "" || c.Server == "" || gitVersion == "" || m == nil || len(m.Gates) == 0 {
		return
	}
	// A file still good keeps its time: what it held is no younger now.
	f := c.load(gitVersion)
	if f == nil {
		f = &cachedFacts{GitVersion: gitVersion, ReadAt: c.now(), WatchCache: map[string]Tri{}}
	}
	f.Gates = m.Gates
	if resource != "" && m.WatchCache != Unknown {
		f.WatchCache[resource] = m.WatchCache
		if f.Stored == nil {
			f.Stored = map[string]Tri{}
		}
		f.Stored[resource] = m.Stored
	}
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	// As kubectl's discovery cache: private to the user, written whole
	// (a temporary file renamed), a failure only costs the next run a read.
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
