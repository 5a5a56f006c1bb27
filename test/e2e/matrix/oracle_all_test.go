//go:build e2e

package matrix

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// checkProbeAll: probe --all reads the current RV once for the run and
// gives most resources one watch (issue 23). What that rests on is
// checked first on this cell: writes to two resources interleave in one
// revision, and a consistent list of either is at or past the newest write
// of both. Then the configmaps row of --all (scoped to the history's
// namespace) passes the checks of a single probe: its current RV is the
// server's, its oldest RV a raw watch starts from and reads every logged
// write above, one below fails; and on a cell with the watch cache on, the
// resources storage does not answer cost at most 1.2 requests each.
func (o *oracle) checkProbeAll() {
	o.t.Helper()
	o.checkSharedRevision()
	var got struct {
		Resources []struct {
			windowRow
			Resource    string `json:"resource"`
			CurrentFrom string `json:"currentFrom"`
			Requests    int    `json:"requests"`
			Error       string `json:"error"`
		} `json:"resources"`
		Requests            int     `json:"requests"`
		RequestsPerResource float64 `json:"requestsPerResource"`
		RunCurrent          struct {
			Reads int `json:"reads"`
		} `json:"runCurrent"`
	}
	path := "/api/v1/namespaces/" + o.h.ns + "/configmaps"
	args := []string{"probe", "--all", "-n", o.h.ns, "--qps", "100"}
	var mismatches []string
	fail := func(format string, a ...any) { mismatches = append(mismatches, fmt.Sprintf(format, a...)) }
	before, _ := o.s.list(path, nil)
	cmd, _ := o.pluginAny(&got, []int{0}, args...)
	after, _ := o.s.list(path, nil)
	// The target is for the resources whose watch cache answers: those
	// storage answers (the events, whose cache is off by default) are
	// searched in full.
	cacheRows, cacheRequests := 0, got.Requests
	for _, r := range got.Resources {
		if r.Error != "" {
			fail("%s: %s", r.Resource, r.Error)
		}
		if r.Source == "storage" {
			cacheRequests -= r.Requests
		} else {
			cacheRows++
		}
		if r.Resource == "configmaps" {
			// The run's current RV was read before this row: a write of the
			// history can only be at or below it.
			o.checkWindow("probe --all", path, false, r.windowRow, before, after, fail)
		}
	}
	perCache := float64(cacheRequests) / float64(max(cacheRows, 1))
	if o.cell.WatchCache && perCache > 1.2 {
		fail("%.2f requests per resource not answered by storage (%d of %d for %d of %d rows), want at most 1.2", perCache, cacheRequests, got.Requests, cacheRows, len(got.Resources))
	}
	if o.cell.WatchCache && got.RunCurrent.Reads < 1 {
		fail("the current RV was not read once for the run: %+v", got.RunCurrent)
	}
	o.t.Logf("probe --all on %s: %d requests for %d resources (%.2f each; %.2f for each of the %d not answered by storage)", o.cell.Name(), got.Requests, len(got.Resources), got.RequestsPerResource, perCache, cacheRows)
	o.judge("probe --all", cmd, mismatches)
}

// checkSharedRevision: a configmap, a secret and a configmap written in
// turn (in a namespace of their own: the history's write log stays whole)
// get increasing RVs of one sequence, and consistent lists of configmaps
// and of secrets are at or past the last of them: one current RV holds for
// both.
func (o *oracle) checkSharedRevision() {
	o.t.Helper()
	ctx := o.t.Context()
	cs, ns := framework.Namespace(o.t, o.s.c, "oracle-shared-rev")
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	var rvs []uint64
	for i, kind := range []string{"cm", "secret", "cm"} {
		name := fmt.Sprintf("shared-rev-%s-%d", stamp, i)
		var rv string
		if kind == "cm" {
			c, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			if err != nil {
				o.t.Fatal(err)
			}
			rv = c.ResourceVersion
		} else {
			s, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			if err != nil {
				o.t.Fatal(err)
			}
			rv = s.ResourceVersion
		}
		n, _ := strconv.ParseUint(rv, 10, 64)
		rvs = append(rvs, n)
	}
	var bad []string
	if !(rvs[0] < rvs[1] && rvs[1] < rvs[2]) {
		bad = append(bad, fmt.Sprintf("a configmap, a secret, a configmap written in turn got RVs %v: not one increasing revision", rvs))
	}
	for _, p := range []string{"/api/v1/namespaces/" + ns + "/configmaps", "/api/v1/namespaces/" + ns + "/secrets"} {
		if rv, _ := o.s.list(p, nil); rv < rvs[2] {
			bad = append(bad, fmt.Sprintf("a consistent list of %s has RV %d, below the last write %d", p, rv, rvs[2]))
		}
	}
	checksMade.Add(3)
	o.judge("one revision", []string{"(raw writes and lists)", strings.Join([]string{"configmaps", "secrets"}, ",")}, bad)
}
