package main

func init() {
	steps = append(steps, step{order: 95, name: "clients", run: func(d *demo) error {
		banner("clients: who listed and watched what, from this API server's own audit log (the informer's relist after the restart, the plugin's own reads)")
		return d.runPlugin("clients", "-f", d.cluster.APIServers[0].AuditLog, "--server-version", "v1.37.2", "--watch-cache", d.cacheSetting(), "--top", "6", "--timeline", "3")
	}})
}
