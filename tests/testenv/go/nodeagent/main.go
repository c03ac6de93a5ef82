// nodeagent stands in for the kubelet's streaming server only: it registers
// a Node whose status points the apiserver at it (InternalIP and
// daemonEndpoints.kubeletEndpoint.Port) and serves the kubelet's
// port-forward endpoint /portForward/<namespace>/<pod> over TLS with the
// upstream kubelet streaming code (k8s.io/cri-streaming). Each forwarded
// stream is connected to the pod's status.podIP and the requested port (the
// fixtures set podIP to the member's loopback address). It runs no
// containers and answers nothing else. The one other kubelet duty it takes
// on: a pod of its node being deleted is removed for good (grace period 0),
// as a kubelet does once the containers stopped, so namespaces still go
// away at once as they did before pods had a node.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
)

type agent struct {
	api    string
	client *http.Client
	node   string
}

type podInfo struct {
	node, ip, phase, uid string
}

func (a *agent) do(method, path, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, a.api+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (a *agent) pod(ns, name string) (podInfo, error) {
	code, b, err := a.do("GET", "/api/v1/namespaces/"+ns+"/pods/"+name, "", nil)
	if err != nil {
		return podInfo{}, err
	}
	if code != http.StatusOK {
		return podInfo{}, fmt.Errorf("pod %s/%s: apiserver answered %d", ns, name, code)
	}
	var p struct {
		Metadata struct{ UID string } `json:"metadata"`
		Spec     struct{ NodeName string } `json:"spec"`
		Status   struct {
			PodIP string `json:"podIP"`
			Phase string `json:"phase"`
		} `json:"status"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return podInfo{}, err
	}
	return podInfo{p.Spec.NodeName, p.Status.PodIP, p.Status.Phase, p.Metadata.UID}, nil
}

// register creates the Node (once) and writes the status the apiserver
// reads to reach this agent.
func (a *agent) register(ip string, port int) error {
	node := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": a.node}}
	b, _ := json.Marshal(node)
	code, out, err := a.do("POST", "/api/v1/nodes", "application/json", b)
	if err != nil {
		return err
	}
	if code != http.StatusCreated && code != http.StatusConflict {
		return fmt.Errorf("creating node %s: %d %s", a.node, code, out)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	status := map[string]any{"status": map[string]any{
		"addresses":       []any{map[string]any{"type": "InternalIP", "address": ip}},
		"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": port}},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "NodeAgent",
			"lastHeartbeatTime": now, "lastTransitionTime": now}},
	}}
	b, _ = json.Marshal(status)
	code, out, err = a.do("PATCH", "/api/v1/nodes/"+a.node+"/status", "application/merge-patch+json", b)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("writing node %s status: %d %s", a.node, code, out)
	}
	return nil
}

// finishDeletions removes this node's pods that are being deleted, every
// second, until the process ends.
func (a *agent) finishDeletions() {
	for {
		time.Sleep(time.Second)
		code, b, err := a.do("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D"+a.node, "", nil)
		if err != nil || code != http.StatusOK {
			continue
		}
		var list struct {
			Items []struct {
				Metadata struct {
					Name, Namespace, UID string
					DeletionTimestamp    *string `json:"deletionTimestamp"`
				} `json:"metadata"`
			} `json:"items"`
		}
		if json.Unmarshal(b, &list) != nil {
			continue
		}
		for _, p := range list.Items {
			if p.Metadata.DeletionTimestamp == nil {
				continue
			}
			body, _ := json.Marshal(map[string]any{"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
				"preconditions": map[string]any{"uid": p.Metadata.UID}})
			a.do("DELETE", "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name, "application/json", body)
		}
	}
}

type forwarder struct{ a *agent }

// PortForward connects one forwarded stream to the pod's address, as the
// kubelet's runtime does inside the pod's network namespace.
func (f forwarder) PortForward(ctx context.Context, name string, uid string, port int32, stream io.ReadWriteCloser) error {
	defer stream.Close()
	ns, pod, _ := strings.Cut(name, "/")
	p, err := f.a.pod(ns, pod)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(p.ip, strconv.Itoa(int(port))), 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() {
		io.Copy(conn, stream)
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	io.Copy(stream, conn)
	return nil
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to serve on")
	nodeName := flag.String("node", "", "the Node to register")
	api := flag.String("apiserver", "", "apiserver URL")
	ca := flag.String("ca", "", "CA of the apiserver and of the apiserver's kubelet client certificate")
	cert := flag.String("cert", "", "serving certificate")
	key := flag.String("key", "", "serving key")
	apiCert := flag.String("api-cert", "", "client certificate for the apiserver")
	apiKey := flag.String("api-key", "", "client key for the apiserver")
	portFile := flag.String("port-file", "", "write the serving port here once serving")
	flag.Parse()
	if *nodeName == "" || *api == "" {
		log.Fatal("need --node and --apiserver")
	}

	caPEM, err := os.ReadFile(*ca)
	if err != nil {
		log.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		log.Fatal("no certificate in --ca")
	}
	clientPair, err := tls.LoadX509KeyPair(*apiCert, *apiKey)
	if err != nil {
		log.Fatal(err)
	}
	a := &agent{api: strings.TrimRight(*api, "/"), node: *nodeName, client: &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{clientPair}}},
	}}

	mux := http.NewServeMux()
	mux.HandleFunc("/portForward/", func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/portForward/"), "/")
		if len(parts) < 2 {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		ns, name := parts[0], parts[1]
		p, err := a.pod(ns, name)
		if err != nil || p.node != a.node {
			http.Error(w, "pod not found", http.StatusNotFound)
			return
		}
		if p.phase != "Running" {
			http.Error(w, "pod "+ns+"/"+name+" is not running", http.StatusBadRequest)
			return
		}
		opts, err := portforward.NewV4Options(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		portforward.ServePortForward(w, r, forwarder{a}, ns+"/"+name, p.uid, opts, 4*time.Hour, 30*time.Second,
			portforward.SupportedProtocols)
	})

	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := tls.Listen("tcp", *listen, &tls.Config{
		Certificates: []tls.Certificate{pair},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		NextProtos:   []string{"http/1.1"},
	})
	if err != nil {
		log.Fatal(err)
	}
	host, portStr, _ := net.SplitHostPort(ln.Addr().String())
	port, _ := strconv.Atoi(portStr)
	if err := a.register(host, port); err != nil {
		log.Fatal(err)
	}
	if *portFile != "" {
		if err := os.WriteFile(*portFile, []byte(portStr+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	go a.finishDeletions()
	log.Printf("node agent for node %s serving on %s", a.node, ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
