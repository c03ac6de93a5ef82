// CoreDNS with only the plugins a cluster's DNS needs in the test
// environment's node: answers for Services and Pods from the apiserver
// (kubernetes), the address it listens on (bind), health and readiness endpoints, a cache and the error log.
// No forward plugin: the environment's DNS never asks a server off the
// machine.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	// The order CoreDNS chains these plugins in (a subset of its own list).
	dnsserver.Directives = []string{"bind", "errors", "log", "health", "ready", "cache", "kubernetes"}
	coremain.Run()
}
