package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.neptune.core.MembershipConfig;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/kubernetes} (docs/DEPLOYMENT.md) read against the Kubernetes API's own types
 * (fabric8's model): every document is the kind it says, with no field the API does not know at any
 * depth (a misspelt key would otherwise be dropped by the API server without a word), and the parts
 * that must agree do: the node's config and the pod's ports, mounts and grace period, the
 * membership's DNS name and the headless Service, the selectors and the pod's labels.
 */
class KubernetesManifestsTest {
    private static final Path DIRECTORY = Path.of("..", "deploy", "kubernetes");
    private static final ObjectMapper YAML = JsonMapper.builder(new YAMLFactory()).build();

    private static StatefulSet statefulSet;
    private static Map<String, Service> services;
    private static PodDisruptionBudget budget;
    private static NodeConfig node;

    @BeforeAll
    static void read() throws IOException {
        statefulSet = only(documents("statefulset.yaml", StatefulSet.class));
        services = new java.util.TreeMap<>();
        documents("services.yaml", Service.class).forEach(s -> services.put(s.getMetadata().getName(), s));
        budget = only(documents("poddisruptionbudget.yaml", PodDisruptionBudget.class));
        // As the pod's environment makes it: the StatefulSet's second pod, in namespace "shop".
        node = NodeConfigFile.load(DIRECTORY.resolve("neptune.yaml"), Map.of("POD_NAME", "neptune-1", "POD_IP",
                "127.0.0.1", "POD_NAMESPACE", "shop"), Map.of()).node();
    }

    @Test
    void theKustomizationListsEveryManifestAndGeneratesTheConfigMapFromTheNodesConfig() throws IOException {
        JsonNode kustomization = YAML.readTree(DIRECTORY.resolve("kustomization.yaml").toFile());
        List<String> resources = new ArrayList<>();
        kustomization.get("resources").forEach(r -> resources.add(r.asText()));
        try (Stream<Path> files = Files.list(DIRECTORY)) {
            assertThat(resources).containsExactlyInAnyOrderElementsOf(files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml") && !n.equals("neptune.yaml"))
                    .toList());
        }
        JsonNode generator = kustomization.get("configMapGenerator").get(0);
        assertThat(generator.get("name").asText()).isEqualTo(statefulSet.getSpec().getTemplate().getSpec().getVolumes()
                .stream().filter(v -> v.getConfigMap() != null).findFirst().orElseThrow().getConfigMap().getName());
        assertThat(generator.get("files").get(0).asText()).isEqualTo("neptune.yaml");
    }

    @Test
    void theNodesConfigTakesItsNameAndAddressFromThePodAndFindsItsPeersThroughTheHeadlessService() {
        assertThat(node.node().value()).isEqualTo("neptune-1");
        assertThat(node.bindAddress()).isEqualTo("127.0.0.1");
        Service headless = services.get(statefulSet.getSpec().getServiceName());
        assertThat(headless).as("the StatefulSet's serviceName is a Service here").isNotNull();
        assertThat(headless.getSpec().getClusterIP()).as("headless").isEqualTo("None");
        assertThat(headless.getSpec().getPublishNotReadyAddresses()).as("a node becomes ready only once its peers"
                + " found it through this name").isTrue();
        assertThat(node.membership().stack()).isEqualTo(MembershipConfig.Stack.DNS);
        assertThat(node.membership().dnsQuery()).isEqualTo(headless.getMetadata().getName() + ".shop.svc.cluster.local");
    }

    @Test
    void thePodDeclaresThePortsTheNodeListensOnAndProbesItsAdminPort() {
        Container container = container();
        Map<Integer, String> ports = new java.util.TreeMap<>();
        for (ContainerPort port : container.getPorts()) {
            ports.put(port.getContainerPort(), port.getName());
        }
        assertThat(ports).containsKeys(node.port(), node.pollPort(), node.membership().port(), node.adminPort());
        assertThat(container.getPorts()).filteredOn(p -> p.getContainerPort() == node.pollPort()).singleElement()
                .satisfies(p -> assertThat(p.getProtocol()).as("load polls are UDP").isEqualTo("UDP"));
        String admin = ports.get(node.adminPort());
        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health/ready");
        assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo(admin);
        assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health/live");
        assertThat(container.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo(admin);
        for (Service service : services.values()) {
            assertThat(service.getSpec().getPorts()).as("%s's target ports name the pod's", service.getMetadata().getName())
                    .allSatisfy(p -> assertThat(ports).containsValue(p.getTargetPort().getStrVal()));
        }
    }

    @Test
    void aPodIsKilledOnlyAfterItsDrainCouldFinish() {
        long grace = statefulSet.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        assertThat(grace).as("terminationGracePeriodSeconds against drain-timeout %s and 15 s to close",
                node.drainTimeout()).isGreaterThanOrEqualTo(node.drainTimeout().toSeconds() + 15);
        assertThat(statefulSet.getSpec().getPodManagementPolicy()).as("pods start together: a node is ready only"
                + " with a majority of its peers").isEqualTo("Parallel");
        assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).as("one node out at a time").isEqualTo(1);
    }

    @Test
    void theNodeKeepsItsDataOnTheVolumeAndReadsItsCertificateFromTheSecretAsANonRootUser() {
        Container container = container();
        VolumeMount data = mount(container, "data");
        assertThat(node.dataDirectory().startsWith(Path.of(data.getMountPath()))).as("data-directory %s on the volume"
                + " mounted at %s", node.dataDirectory(), data.getMountPath()).isTrue();
        assertThat(statefulSet.getSpec().getVolumeClaimTemplates()).extracting(c -> c.getMetadata().getName())
                .containsExactly("data");
        VolumeMount tls = mount(container, "tls");
        assertThat(List.of(node.security().certificate(), node.security().key(), node.security().trust()))
                .allSatisfy(file -> assertThat(file.startsWith(Path.of(tls.getMountPath()))).isTrue())
                .anySatisfy(file -> assertThat(file.getFileName().toString()).isEqualTo("node-neptune-1.pem"));
        assertThat(statefulSet.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(container.getArgs()).containsExactly("--config", mount(container, "config").getMountPath()
                + "/neptune.yaml");
    }

    @Test
    void everySelectorSelectsThePodsLabels() {
        Map<String, String> labels = statefulSet.getSpec().getTemplate().getMetadata().getLabels();
        assertThat(labels).containsAllEntriesOf(statefulSet.getSpec().getSelector().getMatchLabels());
        assertThat(labels).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
        services.values().forEach(s -> assertThat(labels).containsAllEntriesOf(s.getSpec().getSelector()));
    }

    private static Container container() {
        return only(statefulSet.getSpec().getTemplate().getSpec().getContainers());
    }

    private static VolumeMount mount(Container container, String volume) {
        return container.getVolumeMounts().stream().filter(m -> m.getName().equals(volume)).findFirst().orElseThrow();
    }

    private static <T> T only(List<T> items) {
        assertThat(items).hasSize(1);
        return items.get(0);
    }

    /**
     * The documents of {@code file}, each read as {@code type} after checking its {@code kind}; fails
     * on any field the API's type does not have, at any depth.
     */
    private static <T extends KubernetesResource> List<T> documents(String file, Class<T> type) throws IOException {
        List<T> documents = new ArrayList<>();
        try (YAMLParser parser = (YAMLParser) YAML.getFactory().createParser(DIRECTORY.resolve(file).toFile())) {
            for (JsonNode tree : YAML.readValues(parser, JsonNode.class).readAll()) {
                assertThat(tree.path("kind").asText()).as("%s: kind", file).isEqualTo(type.getSimpleName());
                T document = YAML.treeToValue(tree, type);
                assertThat(unknownFields(document, file)).as("fields the Kubernetes API does not know").isEmpty();
                documents.add(document);
            }
        }
        assertThat(documents).as(file).isNotEmpty();
        return documents;
    }

    /**
     * Where the model kept a field it has no property for: fabric8's types keep any unknown key in
     * {@code getAdditionalProperties()} rather than refusing it, so a strict read walks the tree.
     */
    private static List<String> unknownFields(Object value, String path) {
        List<String> unknown = new ArrayList<>();
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                unknown.addAll(unknownFields(item, path + "[" + i++ + "]"));
            }
            return unknown;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, item) -> unknown.addAll(unknownFields(item, path + "." + key)));
            return unknown;
        }
        if (value == null || !value.getClass().getName().startsWith("io.fabric8.")) {
            return unknown;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
                continue;
            }
            Object field = invoke(getter, value);
            if (getter.getName().equals("getAdditionalProperties")) {
                ((Map<?, ?>) field).keySet().forEach(key -> unknown.add(path + "." + key));
            } else {
                unknown.addAll(unknownFields(field, path + "." + getter.getName().substring(3)));
            }
        }
        return unknown;
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new AssertionError(getter + " of " + target.getClass().getName(), e);
        }
    }
}
