"""The manifests in deploy/, checked offline against what they deploy:
scripts/image.sh's image name, bef_serve's flags, ports and health routes,
and each other (selectors, named ports, the KServe runtime's name and
format). kubectl's client-side dry run needs an API server for its schemas,
so this is the schema check that runs here: the fields each kind requires,
and the facts the manifests must agree on.

usage: python3 manifests_test.py DEPLOY_DIR PYTHON_INIT  (python/bef/__init__.py)
"""

import os
import re
import sys
import unittest

import yaml

DEPLOY = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
VERSION_FILE = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    DEPLOY, "..", "python", "bef", "__init__.py")
del sys.argv[1:]

# What scripts/image.sh builds: its default name, the user it runs as.
with open(VERSION_FILE) as f:
    VERSION = re.search(r'^__version__ = "(.*)"$', f.read(), re.M).group(1)
IMAGE = "localhost/bef-serve:" + VERSION
IMAGE_USER = 1000
# bef_serve's routes the probes may use (docs/serving.md).
HEALTH_PATHS = {"/v2/health/ready", "/v2/health/live", "/healthz"}
# How long bef_serve may take after --drain_secs before it exits.
EXIT_AFTER_DRAIN_SECS = 2


def load(path):
    with open(os.path.join(DEPLOY, path)) as f:
        return [doc for doc in yaml.safe_load_all(f) if doc is not None]


def flags(args):
    out = {}
    for arg in args:
        match = re.fullmatch(r"--([a-z_]+)=(.*)", arg)
        assert match, "not a --flag=value argument: %r" % arg
        out[match.group(1)] = match.group(2)
    return out


class ContainerChecks:
    def check_object(self, doc, api_version, kind):
        self.assertEqual(doc.get("apiVersion"), api_version)
        self.assertEqual(doc.get("kind"), kind)
        self.assertTrue(doc.get("metadata", {}).get("name"), "metadata.name")

    def check_container(self, container, grace_secs):
        """A bef_serve container: the image's name, flags bef_serve takes,
        probes on its health routes and ports, requests, a grace period
        above the drain."""
        self.assertTrue(container.get("name"))
        self.assertEqual(container.get("image"), IMAGE)
        args = flags(container.get("args", []))
        self.assertEqual(args.get("model_repository"), "/mnt/models")
        self.assertEqual(args.get("host"), "0.0.0.0")
        ports = {}
        for port in container.get("ports", []):
            self.assertIsInstance(port.get("containerPort"), int)
            self.assertIn(port.get("protocol", "TCP"), ("TCP",))
            ports[port["containerPort"]] = port
            if "name" in port:
                ports[port["name"]] = port
        self.assertIn(int(args["port"]), ports, "the HTTP port is declared")
        for probe_name in ("readinessProbe", "livenessProbe"):
            probe = container.get(probe_name, {}).get("httpGet")
            self.assertIsNotNone(probe, probe_name)
            self.assertIn(probe["path"], HEALTH_PATHS)
            port = ports.get(probe["port"])
            self.assertIsNotNone(port, "%s's port %r is declared" % (probe_name, probe["port"]))
            self.assertEqual(port["containerPort"], int(args["port"]), "probes go to HTTP")
        requests = container.get("resources", {}).get("requests", {})
        self.assertIn("cpu", requests)
        self.assertIn("memory", requests)
        self.assertIn("drain_secs", args)
        self.assertGreater(grace_secs, int(args["drain_secs"]) + EXIT_AFTER_DRAIN_SECS,
                           "terminationGracePeriodSeconds is above --drain_secs")
        return args, ports


class KubernetesTest(unittest.TestCase, ContainerChecks):
    def test_deployment_and_service(self):
        docs = load("kubernetes/bef-serve.yaml")
        self.assertEqual([d["kind"] for d in docs], ["Deployment", "Service"])
        deployment, service = docs
        self.check_object(deployment, "apps/v1", "Deployment")
        self.check_object(service, "v1", "Service")
        spec = deployment["spec"]
        labels = spec["template"]["metadata"]["labels"]
        for key, value in spec["selector"]["matchLabels"].items():
            self.assertEqual(labels.get(key), value, "the selector selects the pods")
        pod = spec["template"]["spec"]
        self.assertEqual(pod["securityContext"]["runAsUser"], IMAGE_USER)
        self.assertTrue(pod["securityContext"]["runAsNonRoot"])
        [container] = pod["containers"]
        args, ports = self.check_container(container, pod["terminationGracePeriodSeconds"])
        self.assertIn(int(args["grpc_port"]), ports, "the gRPC port is declared")
        mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
        self.assertTrue(mounts["/mnt/models"].get("readOnly"), "the repository is read-only")
        volumes = {v["name"] for v in pod["volumes"]}
        self.assertIn(mounts["/mnt/models"]["name"], volumes)
        for key, value in service["spec"]["selector"].items():
            self.assertEqual(labels.get(key), value, "the Service selects the pods")
        for port in service["spec"]["ports"]:
            self.assertIn(port["targetPort"], ports, "the Service's target is a container port")


class KServeTest(unittest.TestCase, ContainerChecks):
    def test_serving_runtime_and_inference_service(self):
        [runtime] = load("kserve/bef-serve-runtime.yaml")
        [service] = load("kserve/inference-service.yaml")
        self.check_object(runtime, "serving.kserve.io/v1alpha1", "ServingRuntime")
        self.check_object(service, "serving.kserve.io/v1beta1", "InferenceService")
        predictor = service["spec"]["predictor"]
        [container] = runtime["spec"]["containers"]
        # KServe's model container must carry this name.
        self.assertEqual(container["name"], "kserve-container")
        self.check_container(container, predictor["terminationGracePeriodSeconds"])
        model = predictor["model"]
        self.assertEqual(model["runtime"], runtime["metadata"]["name"])
        formats = {f["name"] for f in runtime["spec"]["supportedModelFormats"]}
        self.assertIn(model["modelFormat"]["name"], formats)
        self.assertIn(model["protocolVersion"], runtime["spec"]["protocolVersions"])
        self.assertTrue(model["storageUri"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
