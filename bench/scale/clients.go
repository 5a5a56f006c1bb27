package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// measureClients runs kubectl watchrv clients and the jq pipeline on audit
// logs of each size, generated from the recorded real lines by
// bench/clients-gen.py straight to disk (in c.work), one at a time, each
// removed after its runs.
func measureClients(ctx context.Context, r *runner, c config) ([]Result, error) {
	var out []Result
	for _, size := range c.logSizes {
		var st syscall.Statfs_t
		if err := syscall.Statfs(c.work, &st); err != nil {
			return nil, err
		}
		free := int64(st.Bavail) * st.Bsize
		// The log, and sort's temporary files for the jq pipeline (its
		// user agents only, a few percent of the log): a GiB of margin.
		if need := size + 1<<30; free < need {
			return nil, fmt.Errorf("%s has %s free, an audit log of %s needs %s: free space or give LOG_SIZES smaller", c.work, human(free), human(size), human(need))
		}
		path := filepath.Join(c.work, "audit.log")
		t0 := time.Now()
		logf("generating a %s audit log (bench/clients-gen.py, to disk)...", human(size))
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		gen := exec.CommandContext(ctx, "python3", "bench/clients-gen.py", fmt.Sprint(size))
		gen.Stdout, gen.Stderr = f, os.Stderr
		err = gen.Run()
		f.Close()
		if err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("bench/clients-gen.py: %w", err)
		}
		fi, _ := os.Stat(path)
		logf("  %s in %s; load %s", human(fi.Size()), time.Since(t0).Round(time.Second), loadavg())
		label := human(size)
		cmds := []Cmd{{ID: "clients/watchrv", Group: "clients", Tool: "watchrv", Display: "kubectl-watchrv clients -f audit.log", Args: []string{"kubectl-watchrv", "clients", "-f", path}, Reps: 1, Direct: true}}
		if c.skipJQOver == 0 || size <= c.skipJQOver {
			cmds = append(cmds, Cmd{ID: "clients/jq", Group: "clients", Tool: "jq", Display: "jq -r .userAgent audit.log | sort | uniq -c", Args: []string{"bash", "-c", `jq -r .userAgent "$0" | sort | uniq -c`, path}, Reps: 1})
		}
		for _, cmd := range cmds {
			rs, err := r.measure(ctx, cmd, fi.Size(), label)
			if err != nil {
				os.Remove(path)
				return nil, err
			}
			out = append(out, rs)
		}
		os.Remove(path)
	}
	return out, nil
}
