package dev.homing.gateway.deploy;

import dev.homing.config.Settings;

import dev.homing.gateway.cli.LaunchCommand;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.discovery.DiscoverySettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kubernetes manifests of {@code deploy/kubernetes} as a cluster would read them: each parses into fabric8's
 * typed model, the container's arguments are read by the gateway's own command line, and the rest (RBAC, probes,
 * resources, security) is what docs/KUBERNETES.md says.
 */
class KubernetesManifestsTest {

    private static final Path DIR = Path.of("..", "deploy", "kubernetes");
    /**
     * Built (gateway.discovery) and refused by {@code homing launch} until the configuration table wires them into
     * {@link DiscoverySettings}: read here by the command line's parser, then into the settings by hand.
     */
    /** Measured (docs/BENCHMARKS.md): live heap holding 10,000 streams, after a full GC. */
    private static final long STREAMS_HEAP_MB = 151;
    /** Measured (TreeFootprint): a full tree of one model, 64 Mi characters at 2.06 bytes each at worst. */
    private static final long TREE_HEAP_MB = 138;
    /** Measured: RSS less heap with 10,000 streams open (370 MB - 151 MB). */
    private static final long NON_HEAP_MB = 220;

    private static final List<HasMetadata> RESOURCES = new ArrayList<>();
    /** The name of the replica bus's resources (nats.yaml). */
    private static final String BUS = "homing-nats";

    @BeforeAll
    static void readTheManifests() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                Object parsed = Serialization.unmarshal(Files.readString(file));
                if (parsed instanceof List<?> list) {
                    list.forEach(item -> RESOURCES.add((HasMetadata) item));
                } else {
                    RESOURCES.add((HasMetadata) parsed);
                }
            }
        }
    }

    /** The gateway's one resource of that kind (the replica bus's, nats.yaml, aside). */
    private static <T extends HasMetadata> T only(Class<T> type) {
        return only(type, r -> !r.getMetadata().getName().equals(BUS), type.getSimpleName());
    }

    private static <T extends HasMetadata> T only(Class<T> type, String name) {
        return only(type, r -> r.getMetadata().getName().equals(name), type.getSimpleName() + " " + name);
    }

    private static <T extends HasMetadata> T only(Class<T> type, Predicate<T> which, String what) {
        List<T> matching = RESOURCES.stream().filter(type::isInstance).map(type::cast).filter(which).toList();
        assertThat(matching).as("one %s", what).hasSize(1);
        return matching.getFirst();
    }

    private static PodSpec podSpec() {
        return only(Deployment.class).getSpec().getTemplate().getSpec();
    }

    private static Container gateway() {
        return podSpec().getContainers().getFirst();
    }

    private static int containerPort(String name) {
        return gateway().getPorts().stream().filter(p -> p.getName().equals(name))
                .map(ContainerPort::getContainerPort).findFirst().orElseThrow();
    }

    @Test
    void everyManifestParsesIntoFabric8sTypedModel() {
        assertThat(RESOURCES).noneMatch(GenericKubernetesResource.class::isInstance);
        assertThat(RESOURCES).extracting(HasMetadata::getKind).containsExactlyInAnyOrder("Namespace",
                "ServiceAccount", "Role", "RoleBinding", "Deployment", "Service", "PodDisruptionBudget",
                "Deployment", "Service", "NetworkPolicy");
        String namespace = only(Namespace.class).getMetadata().getName();
        assertThat(RESOURCES).filteredOn(r -> !(r instanceof Namespace))
                .allSatisfy(r -> assertThat(r.getMetadata().getNamespace()).isEqualTo(namespace));
    }

    /** {@code kubectl apply -f deploy/kubernetes/} applies the files in name order, and a file's objects in turn. */
    @Test
    void kubectlAppliesTheNamespaceBeforeAnythingInIt() {
        Set<String> created = new HashSet<>();
        for (HasMetadata resource : RESOURCES) {
            if (resource instanceof Namespace) {
                created.add(resource.getMetadata().getName());
            } else {
                assertThat(created).as("namespaces created before %s %s", resource.getKind(),
                        resource.getMetadata().getName()).contains(resource.getMetadata().getNamespace());
            }
        }
    }

    @Test
    void theGatewayMayOnlyGetListAndWatchPodsInItsOwnNamespace() {
        Role role = only(Role.class);
        assertThat(role.getRules()).singleElement().satisfies((PolicyRule rule) -> {
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).containsExactly("pods");
            assertThat(rule.getVerbs()).containsExactly("get", "list", "watch");
        });
        RoleBinding binding = only(RoleBinding.class);
        assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
        assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        String account = only(ServiceAccount.class).getMetadata().getName();
        assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
            assertThat(subject.getKind()).isEqualTo("ServiceAccount");
            assertThat(subject.getName()).isEqualTo(account);
        });
        assertThat(podSpec().getServiceAccountName()).isEqualTo(account);
    }

    /** Parses {@code homing launch} arguments as the executable does; fails on any flag it does not have. */
    private static CommandLine.ParseResult parseLaunch(List<String> args) {
        assertThat(args.getFirst()).isEqualTo("launch");
        return new CommandLine(new LaunchCommand()).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
    }

    @Test
    void aFlagThatDoesNotExistFailsTheArgumentCheck() {
        assertThatThrownBy(() -> parseLaunch(List.of("launch", "--port", "30000", "--discovery-selector", "a=b")))
                .isInstanceOf(CommandLine.UnmatchedArgumentException.class);
    }

    @Test
    void theContainerArgumentsAreReadByTheRealCommandLine() {
        List<String> args = gateway().getArgs();
        CommandLine.ParseResult parsed = parseLaunch(args);

        GatewayConfig config = LaunchCommand.parse(args.subList(1, args.size()).toArray(String[]::new));
        assertThat(config.get(Settings.PORT)).isEqualTo(containerPort("http"));
        assertThat(config.get(Settings.PROMETHEUS_PORT)).isEqualTo(containerPort("metrics"));
        assertThat(config.get(Settings.HOST)).isEqualTo("0.0.0.0");

        assertThat(parsed.hasMatchedOption("--service-discovery")).isTrue();
        String namespaceArg = parsed.matchedOptionValue("--service-discovery-namespace", "");
        assertThat(namespaceArg).isEqualTo("$(POD_NAMESPACE)");
        EnvVar podNamespace = gateway().getEnv().stream().filter(e -> e.getName().equals("POD_NAMESPACE"))
                .findFirst().orElseThrow();
        assertThat(podNamespace.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        DiscoverySettings discovery = DiscoverySettings.of(config.values());
        assertThat(discovery.enabled()).isTrue();
        assertThat(discovery.namespace()).isEqualTo("$(POD_NAMESPACE)");
        assertThat(discovery.port()).isEqualTo(Integer.parseInt(parsed.matchedOptionValue("--service-discovery-port", "0")));
        assertThat(discovery.selector()).isEqualTo(Map.of("app", "sglang"));
        assertThat(config.get(Settings.LOG_JSON)).isTrue();
        assertThat(config.get(Settings.ENABLE_TRACE)).as("traces are the operator's choice").isFalse();
    }

    @Test
    void theTraceArgumentsLeftCommentedOutAreReadByTheRealCommandLineOnceUncommented() throws IOException {
        List<String> commented = Files.readAllLines(DIR.resolve("deployment.yaml")).stream()
                .map(String::strip).filter(line -> line.startsWith("# - ")).map(line -> line.substring(4)).toList();

        GatewayConfig config = LaunchCommand.parse(commented.toArray(String[]::new));

        assertThat(config.get(Settings.ENABLE_TRACE)).isTrue();
        assertThat(config.get(Settings.OTLP_TRACES_ENDPOINT)).isEqualTo("otel-collector.observability:4318");
    }

    @Test
    void theProbesAskTheGatewaysLivenessAndReadinessOnItsPort() {
        Container gateway = gateway();
        assertThat(gateway.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/liveness");
        assertThat(gateway.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(gateway.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readiness");
        assertThat(gateway.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        Service service = only(Service.class);
        assertThat(service.getSpec().getSelector())
                .isEqualTo(only(Deployment.class).getSpec().getSelector().getMatchLabels());
        assertThat(service.getSpec().getPorts()).extracting(p -> p.getTargetPort().getStrVal())
                .containsExactlyInAnyOrder("http", "metrics");
    }

    @Test
    void twoReplicasRunAndOneAlwaysStaysUp() {
        Deployment deployment = only(Deployment.class);
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
        PodDisruptionBudget budget = only(PodDisruptionBudget.class);
        assertThat(budget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(budget.getSpec().getSelector().getMatchLabels())
                .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
    }

    @Test
    void theReplicasKeepInStepThroughTheNatsServerTheManifestsRunAndOnlyTheyMayReachIt() {
        List<String> args = gateway().getArgs();
        GatewayConfig config = LaunchCommand.parse(args.subList(1, args.size()).toArray(String[]::new));
        URI bus = URI.create(config.get(Settings.REPLICA_SYNC).getFirst());
        assertThat(bus.getHost()).isEqualTo(BUS);

        Service natsService = only(Service.class, bus.getHost());
        assertThat(natsService.getSpec().getPorts()).singleElement()
                .satisfies(port -> assertThat(port.getPort()).isEqualTo(bus.getPort()));
        Deployment nats = only(Deployment.class, bus.getHost());
        assertThat(natsService.getSpec().getSelector())
                .isEqualTo(nats.getSpec().getSelector().getMatchLabels());
        Container server = nats.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(server.getImage()).startsWith("nats:");
        assertThat(server.getPorts()).anySatisfy(port -> assertThat(port.getContainerPort()).isEqualTo(bus.getPort()));
        assertThat(server.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();

        NetworkPolicy admission = only(NetworkPolicy.class, bus.getHost());
        assertThat(admission.getSpec().getPodSelector().getMatchLabels())
                .isEqualTo(nats.getSpec().getSelector().getMatchLabels());
        assertThat(admission.getSpec().getIngress()).singleElement().satisfies(rule -> assertThat(rule.getFrom())
                .singleElement().satisfies(peer -> assertThat(peer.getPodSelector().getMatchLabels())
                        .isEqualTo(only(Deployment.class).getSpec().getSelector().getMatchLabels())));
        assertThat(gateway().getArgs()).as("no credentials in the arguments").noneMatch(arg -> arg.contains("@"));
    }

    @Test
    void theMemoryIsSizedFromTheMeasuredHeap() throws IOException {
        Map<String, Quantity> requests = gateway().getResources().getRequests();
        Map<String, Quantity> limits = gateway().getResources().getLimits();
        assertThat(requests.get("memory")).isEqualTo(limits.get("memory"));
        assertThat(limits).as("no CPU limit").doesNotContainKey("cpu");
        long limitMb = Quantity.getAmountInBytes(limits.get("memory")).divide(BigDecimal.valueOf(1 << 20))
                .longValueExact();
        long heapMb = limitMb * DockerfileTest.maxRamPercentage() / 100;

        assertThat(heapMb).as("heap of %d MiB", heapMb).isGreaterThanOrEqualTo(2 * (STREAMS_HEAP_MB + TREE_HEAP_MB));
        assertThat(heapMb + NON_HEAP_MB).isLessThanOrEqualTo(limitMb);
    }

    @Test
    void theContainerRunsAsNonRootOnAReadOnlyRootFilesystemWithAWritableTmp() throws IOException {
        assertThat(podSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(podSpec().getSecurityContext().getRunAsUser()).isEqualTo(DockerfileTest.imageUser());
        assertThat(gateway().getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(gateway().getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(gateway().getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(gateway().getVolumeMounts()).singleElement()
                .satisfies(mount -> assertThat(mount.getMountPath()).isEqualTo("/tmp"));
        assertThat(podSpec().getVolumes()).singleElement()
                .satisfies(volume -> assertThat(volume.getEmptyDir()).isNotNull());
    }

    @Test
    void theTerminationGraceCoversThePauseBeforeStoppingAndTheShutdownGrace() {
        long pause = Long.parseLong(gateway().getLifecycle().getPreStop().getExec().getCommand().get(1));
        long shutdownGrace = GatewayConfig.DEFAULTS.get(Settings.SHUTDOWN_GRACE_PERIOD_SECS);

        assertThat(Duration.ofSeconds(podSpec().getTerminationGracePeriodSeconds()))
                .isGreaterThan(Duration.ofSeconds(pause + shutdownGrace));
    }

    @Test
    void thePrometheusJobScrapesThePortTheDeploymentNamesMetrics() throws IOException {
        JsonNode job = new YAMLMapper().readTree(Files.readString(Path.of("..", "deploy", "prometheus",
                "scrape-config.yaml"))).path("scrape_configs").path(0);
        String namespace = only(Deployment.class).getMetadata().getNamespace();
        assertThat(job.path("kubernetes_sd_configs").path(0).path("namespaces").path("names").path(0).asString())
                .isEqualTo(namespace);
        List<String> kept = new ArrayList<>();
        for (JsonNode relabel : job.path("relabel_configs")) {
            if (relabel.path("action").asString().equals("keep")) {
                kept.add(relabel.path("source_labels").path(0).asString() + "=" + relabel.path("regex").asString());
            }
        }
        assertThat(kept).containsExactlyInAnyOrder(
                "__meta_kubernetes_pod_label_app_kubernetes_io_name=" + only(Deployment.class).getSpec()
                        .getTemplate().getMetadata().getLabels().get("app.kubernetes.io/name"),
                "__meta_kubernetes_pod_container_port_name=metrics");
        assertThat(containerPort("metrics")).isPositive();
    }
}
