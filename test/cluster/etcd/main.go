// Command etcd is etcd v3.7 built from the Go module proxy for the e2e tests.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
