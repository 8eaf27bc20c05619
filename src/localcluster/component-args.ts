/** Command lines for each component. Loopback addresses only, ever. */
import path from "node:path";

export interface ClusterLayout {
  readonly stateDir: string;
  readonly etcdClientPort: number;
  readonly etcdPeerPort: number;
  readonly apiserverPort: number;
  readonly kwokPort: number;
}

export const files = (stateDir: string) => ({
  pids: path.join(stateDir, "pids"),
  etcdData: path.join(stateDir, "etcd-data"),
  certDir: path.join(stateDir, "certs"),
  /** kube-apiserver writes its self-signed serving certificate followed by its CA here. */
  servingCert: path.join(stateDir, "certs", "apiserver.crt"),
  serviceAccountKey: path.join(stateDir, "sa.key"),
  serviceAccountPub: path.join(stateDir, "sa.pub"),
  tokens: path.join(stateDir, "tokens.csv"),
  kubeconfig: path.join(stateDir, "kubeconfig"),
  auditPolicy: path.join(stateDir, "audit-policy.yaml"),
  auditLog: path.join(stateDir, "audit.log"),
  log: (component: string) => path.join(stateDir, `${component}.log`),
});

export function etcdArgs(l: ClusterLayout): string[] {
  const client = `http://127.0.0.1:${l.etcdClientPort}`;
  const peer = `http://127.0.0.1:${l.etcdPeerPort}`;
  return [
    "--name=kro-local",
    `--data-dir=${files(l.stateDir).etcdData}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=kro-local=${peer}`,
    "--unsafe-no-fsync=true",
    "--log-level=warn",
  ];
}

/** kind's and kubeadm's defaults, so kind-era examples with a fixed clusterIP or pod range work. */
export const SERVICE_CIDR = "10.96.0.0/12";
export const POD_CIDR = "10.244.0.0/16";
/**
 * How long kwok's node Lease lasts; kwok renews it every quarter (10 s), as the kubelet does.
 * Without the flag kwok v0.7.0 keeps no Lease and picks its 10-minute heartbeat stage, so
 * kube-controller-manager (grace period 50 s) marked the node Unknown about once a minute.
 */
export const NODE_LEASE_SECONDS = 40;

export function apiserverArgs(l: ClusterLayout): string[] {
  const f = files(l.stateDir);
  return [
    `--etcd-servers=http://127.0.0.1:${l.etcdClientPort}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${l.apiserverPort}`,
    `--cert-dir=${f.certDir}`,
    // A /12 also leaves room for the fan-out benchmark's 2,000+ Services.
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${f.serviceAccountPub}`,
    `--service-account-signing-key-file=${f.serviceAccountKey}`,
    `--token-auth-file=${f.tokens}`,
    "--authorization-mode=RBAC",
    "--disable-admission-plugins=ServiceAccount",
    "--allow-privileged=true",
    "--profiling=false",
  ];
}

/** An audit log of what the policy selects, as JSON lines (see LocalClusterOptions.auditPolicy). */
export function auditArgs(stateDir: string): string[] {
  const f = files(stateDir);
  return [
    `--audit-policy-file=${f.auditPolicy}`,
    `--audit-log-path=${f.auditLog}`,
    "--audit-log-format=json",
    "--audit-log-mode=blocking",
  ];
}

/**
 * Controllers that need a kubelet, a cloud or a CSR signer stay off; everything else runs.
 * nodeipam gives each node a /24 of the pod CIDR, as kind does; kwok takes pod IPs from it.
 * The host-path provisioner gives PersistentVolumeClaims of the default StorageClass
 * (DEFAULT_STORAGE_CLASS) a volume, so a StatefulSet with volumeClaimTemplates becomes Ready; it
 * makes a directory under /tmp/hostpath_pv/ (a path fixed in kube-controller-manager).
 */
export function controllerManagerArgs(l: ClusterLayout): string[] {
  const f = files(l.stateDir);
  return [
    `--kubeconfig=${f.kubeconfig}`,
    "--secure-port=0",
    "--leader-elect=false",
    "--controllers=*,-service-lb-controller,-route,-cloud-node-lifecycle",
    "--allocate-node-cidrs=true",
    `--cluster-cidr=${POD_CIDR}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    `--service-account-private-key-file=${f.serviceAccountKey}`,
    `--root-ca-file=${f.servingCert}`,
    "--use-service-account-credentials=false",
    "--enable-hostpath-provisioner=true",
  ];
}

/**
 * The default StorageClass of a full-mode cluster: kube-controller-manager's host-path provisioner,
 * bound at once (the simulated node mounts nothing, so there is no node to wait for), the
 * directory deleted with its claim, as kind's `standard` class does with local-path.
 */
export function defaultStorageClass(): unknown {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name: "standard",
      annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
    },
    provisioner: "kubernetes.io/host-path",
    reclaimPolicy: "Delete",
    volumeBindingMode: "Immediate",
  };
}

export function schedulerArgs(l: ClusterLayout): string[] {
  return [`--kubeconfig=${files(l.stateDir).kubeconfig}`, "--secure-port=0", "--leader-elect=false"];
}

export const KWOK_NODE_NAME = "kwok-node-0";
const KWOK_SELECTOR = "kwok.x-k8s.io/node=fake";

export function kwokArgs(l: ClusterLayout): string[] {
  return [
    `--kubeconfig=${files(l.stateDir).kubeconfig}`,
    "--manage-all-nodes=false",
    `--manage-nodes-with-annotation-selector=${KWOK_SELECTOR}`,
    "--node-ip=127.0.0.1",
    `--server-address=127.0.0.1:${l.kwokPort}`,
    `--node-lease-duration-seconds=${NODE_LEASE_SECONDS}`,
  ];
}

/** The simulated node kwok keeps Ready; pods scheduled onto it become Running without containers. */
export function kwokNode(): unknown {
  const resources = { cpu: "32", memory: "256Gi", pods: "250" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: KWOK_NODE_NAME,
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        "kubernetes.io/hostname": KWOK_NODE_NAME,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        type: "kwok",
      },
    },
    spec: {},
    status: { allocatable: resources, capacity: resources },
  };
}
