# The kube-apiserver's command line, shared by `up` and `apiserver-replica`
# (sourced, not run), so that a second apiserver of an environment serves
# exactly as the first does.
# shellcheck shell=bash

# apiserver_args PKI ETCD_URL PORT CERT_DIR: sets the array APISERVER_ARGS.
apiserver_args() {
    local pki=$1 etcd_url=$2 port=$3 cert_dir=$4
    APISERVER_ARGS=(
        --etcd-servers "$etcd_url"
        --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$port"
        --cert-dir "$cert_dir"
        --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key"
        --client-ca-file "$pki/ca.crt"
        --authorization-mode RBAC
        --service-account-issuer https://kubernetes.default.svc
        --service-account-key-file "$pki/sa.pub"
        --service-account-signing-key-file "$pki/sa.key"
        --service-cluster-ip-range 10.0.0.0/24
        --endpoint-reconciler-type none
        --enable-aggregator-routing=true
        --kubelet-client-certificate "$pki/kubelet-client.crt" --kubelet-client-key "$pki/kubelet-client.key"
        --kubelet-certificate-authority "$pki/ca.crt" --kubelet-preferred-address-types InternalIP
        --profiling=false
    )
}
