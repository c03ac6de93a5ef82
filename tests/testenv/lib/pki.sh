# Certificates made by openssl at start-up (sourced).
# shellcheck shell=bash

# pki_ca DIR NAME: DIR/NAME.crt, DIR/NAME.key, a self-signed CA.
pki_ca() {
    local dir=$1 name=$2
    openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
        -keyout "$dir/$name.key" -out "$dir/$name.crt" \
        -subj "/CN=$name" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
}

# pki_cert DIR CA NAME SUBJECT USAGE [SAN...]: DIR/NAME.crt and .key signed by
# DIR/CA.{crt,key}. USAGE: server, client or both. SANs: "DNS:x" or "IP:x".
pki_cert() {
    local dir=$1 ca=$2 name=$3 subj=$4 usage=$5; shift 5
    local eku
    case "$usage" in
    server) eku=serverAuth ;;
    client) eku=clientAuth ;;
    both) eku=serverAuth,clientAuth ;;
    esac
    local ext="$dir/$name.ext"
    {
        echo "basicConstraints=critical,CA:FALSE"
        echo "keyUsage=critical,digitalSignature,keyEncipherment"
        echo "extendedKeyUsage=$eku"
        if [[ $# -gt 0 ]]; then
            local IFS=,
            echo "subjectAltName=$*"
        fi
    } > "$ext"
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$dir/$name.key" \
        -out "$dir/$name.csr" -subj "$subj" 2>/dev/null
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.crt" -CAkey "$dir/$ca.key" \
        -CAcreateserial -days 3650 -sha256 -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null
    rm -f "$dir/$name.csr" "$dir/$name.ext"
    chmod 600 "$dir/$name.key"
}
