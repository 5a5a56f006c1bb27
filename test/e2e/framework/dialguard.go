package framework

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"regexp"
)

// dialRE finds the address of a Go dial error ("dial tcp 10.0.0.1:443: ...")
// and of grpc's transport messages, which wrap the same text.
// A DNS lookup ("lookup kubernetes.default.svc on 10.1.2.3:53: ...") would
// send a packet to the resolver, so it counts too.
var dialRE = regexp.MustCompile(`(?:dial (?:tcp|udp)|lookup) ([0-9A-Za-z.:\[\]-]+?):? `)

// NonLoopbackDials scans the logs of etcd and of every API server for a dial
// to an address outside loopback (a failed dial is always logged, and the
// servers' own clients name the address they dial), and returns the log
// lines. Every packet of a test must stay on 127.0.0.0/8.
func (c *Cluster) NonLoopbackDials() ([]string, error) {
	logs := []string{}
	if c.etcd != nil {
		logs = append(logs, c.etcd.logPath)
	}
	for _, a := range c.APIServers {
		logs = append(logs, a.LogPath)
	}
	var found []string
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			for _, m := range dialRE.FindAllStringSubmatch(line, -1) {
				if !isLoopbackAddr(m[1]) {
					found = append(found, fmt.Sprintf("%s: %s", path, line))
				}
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}

// isLoopbackAddr accepts host:port or a bare host; names other than
// localhost count as non-loopback.
func isLoopbackAddr(s string) bool {
	host := s
	if h, _, err := net.SplitHostPort(s); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
