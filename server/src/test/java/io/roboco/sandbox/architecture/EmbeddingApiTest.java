package io.roboco.sandbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embedding surface, declared and checked (issue 19 item 6): what an embedder may name is the builder and the plugin
 * facade ({@link #FACADE}) and the SPI packages ({@link #SPI_PACKAGES}: engines, container runtime, settings stores,
 * templates). Walking every public constructor, method and field of those types (parameter, return and generic types),
 * every type of ours it reaches must be declared too, so an internal never becomes API by accident.
 *
 * <p>{@link #KNOWN_LEAKS} names the internals still reachable today (the plugin's accessors the server's adapters use),
 * each with a member that reaches it. The list may only shrink: a new leak fails, and so does a listed one that is gone.
 */
class EmbeddingApiTest {
    static final Set<String> FACADE = Set.of(
            "io.roboco.sandbox.plugin.SandboxPlugin",
            "io.roboco.sandbox.plugin.SandboxPluginBuilder",
            "io.roboco.sandbox.plugin.SandboxDecision",
            "io.roboco.sandbox.plugin.SandboxService",
            "io.roboco.sandbox.plugin.SandboxEvents",
            "io.roboco.sandbox.plugin.OrchestratorHandle",
            "io.roboco.sandbox.plugin.PluginExtension",
            "io.roboco.sandbox.plugin.PluginContext",
            "io.roboco.sandbox.plugin.OperatorConsole",
            "io.roboco.sandbox.pool.PoolSizes",
            // The container-start admission's numbers (issue 21): what metrics and a bench read; its turns stay
            // internal.
            "io.roboco.sandbox.provision.StartQueue",
            // Where a start stood when its wait ran out (a refusal's queue_position, queue_length and estimate).
            "io.roboco.sandbox.provision.QueueStanding",
            "io.roboco.sandbox.data.DataOutcome",
            // The front door's ask names the sandbox by its value type (issue 19: the verb set is the one named
            // default; its policy, SandboxName.slides, is the name's).
            "io.roboco.sandbox.request.SandboxName");
    static final Set<String> SPI_PACKAGES = Set.of(
            "io.roboco.sandbox.engine",
            "io.roboco.sandbox.runtime",
            "io.roboco.sandbox.settings",
            "io.roboco.sandbox.template");

    /** Internal type → a public member that reaches it; to be closed off (issue 19 items 1, 2, 6), never added to. */
    static final Map<String, String> KNOWN_LEAKS = new TreeMap<>(Map.ofEntries(
            Map.entry("io.roboco.sandbox.guard.AgentOperation", "GuardChain.admit"),
            Map.entry("io.roboco.sandbox.guard.RoleManifest", "GuardChain.roles"),
            Map.entry("io.roboco.sandbox.ledger.ContainerLedger", "SandboxManager.ledger"),
            Map.entry("io.roboco.sandbox.ledger.OwnedContainers", "PluginContext.containers"),
            Map.entry("io.roboco.sandbox.lifecycle.Capacity", "PluginContext.capacity"),
            Map.entry("io.roboco.sandbox.lifecycle.Lifetimes", "SandboxBook.lifetimes"),
            Map.entry("io.roboco.sandbox.lifecycle.SandboxBook", "Sandboxes.book"),
            Map.entry("io.roboco.sandbox.manager.Admission", "Refused.ownerSandboxes"),
            Map.entry("io.roboco.sandbox.manager.AgentSandbox", "OperatorConsole.sandbox"),
            Map.entry("io.roboco.sandbox.manager.EnsureOutcome", "SandboxManager.ensure"),
            Map.entry("io.roboco.sandbox.manager.SandboxManager", "SandboxPlugin.manager"),
            Map.entry("io.roboco.sandbox.manager.SandboxRequest", "SandboxManager.provisionDetached"),
            Map.entry("io.roboco.sandbox.plugin.GuardChain", "SandboxPlugin.guards"),
            Map.entry("io.roboco.sandbox.plugin.Sandboxes", "PluginContext.sandboxes"),
            Map.entry("io.roboco.sandbox.pool.PoolJournal", "WarmPool.<init>"),
            Map.entry("io.roboco.sandbox.pool.WarmPool", "SandboxManager.pool"),
            Map.entry("io.roboco.sandbox.provision.ImageChoice", "OperatorConsole.image"),
            Map.entry("io.roboco.sandbox.provision.ProvisionSettings", "ProjectForm.parse"),
            Map.entry("io.roboco.sandbox.provision.Seed", "Project.seedFor"),
            Map.entry("io.roboco.sandbox.provision.ServiceInstance", "AgentSandbox.services"),
            Map.entry("io.roboco.sandbox.provision.ServicePlan", "SandboxRequest.plan"),
            Map.entry("io.roboco.sandbox.provision.ServiceProvisioner", "SandboxManager.provisioner")));

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("/testkit/target/"))
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.roboco.sandbox");
    }

    @Test
    void theDeclaredSurfaceReachesNoUndeclaredTypeOfOurs() {
        Map<String, String> leaks = new TreeMap<>();
        Deque<JavaClass> todo = new ArrayDeque<>();
        Set<String> seen = new HashSet<>();
        for (JavaClass c : classes) {
            if (declared(c)) {
                todo.add(c);
                seen.add(c.getName());
            }
        }
        while (!todo.isEmpty()) {
            JavaClass c = todo.poll();
            for (Map.Entry<JavaClass, String> reached : reachedFrom(c).entrySet()) {
                JavaClass type = reached.getKey();
                if (!type.getName().startsWith("io.roboco.sandbox.") || !seen.add(type.getName())) {
                    continue;
                }
                if (!declared(type)) {
                    leaks.putIfAbsent(outermost(type), reached.getValue());
                }
                todo.add(type);
            }
        }
        String table = leaks.entrySet().stream()
                .map(e -> "            Map.entry(\"" + e.getKey() + "\", \"" + e.getValue() + "\"),")
                .collect(Collectors.joining("\n"));
        assertThat(leaks.keySet())
                .as(
                        "internal types reachable from the embedding surface; close them off (or declare them in"
                                + " FACADE). All found now:%n%s",
                        table)
                .isSubsetOf(KNOWN_LEAKS.keySet());
        assertThat(KNOWN_LEAKS.keySet())
                .as("KNOWN_LEAKS entries no longer reachable; remove them. All found now:%n%s", table)
                .isSubsetOf(leaks.keySet());
    }

    private static boolean declared(JavaClass c) {
        String outer = outermost(c);
        return FACADE.contains(outer) || SPI_PACKAGES.contains(c.getPackageName());
    }

    /** The types a public member of a public type names, with the member that names each. */
    private static Map<JavaClass, String> reachedFrom(JavaClass c) {
        Map<JavaClass, String> out = new LinkedHashMap<>();
        if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
            return out;
        }
        for (JavaCodeUnit unit : c.getCodeUnits()) {
            if (!unit.getModifiers().contains(JavaModifier.PUBLIC)) {
                continue;
            }
            String member = c.getSimpleName() + "." + unit.getName();
            unit.getReturnType().getAllInvolvedRawTypes().forEach(t -> out.putIfAbsent(t, member));
            unit.getParameterTypes().forEach(p -> p.getAllInvolvedRawTypes().forEach(t -> out.putIfAbsent(t, member)));
        }
        for (JavaField field : c.getFields()) {
            if (field.getModifiers().contains(JavaModifier.PUBLIC)) {
                field.getType()
                        .getAllInvolvedRawTypes()
                        .forEach(t -> out.putIfAbsent(t, c.getSimpleName() + "." + field.getName()));
            }
        }
        return out;
    }

    private static String outermost(JavaClass c) {
        String name = c.getName();
        int dollar = name.indexOf('$');
        return dollar < 0 ? name : name.substring(0, dollar);
    }
}
