package io.roboco.sandbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of the code (DESIGN.md section 2), checked on the compiled main classes of every module
 * (this module sits last in the reactor and has them all on its test classpath): no package cycle
 * anywhere under {@code io.roboco.sandbox}, and no module reaching a module it may not depend on. A
 * class's module is where it was loaded from ({@code <module>/target/...}), so a new package is covered
 * without editing this test.
 */
class PackageCyclesTest {
    /** Which modules each module's main code may use (besides itself); DESIGN.md section 2. */
    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "engines", Set.of(),
            "sql-inspect", Set.of("engines"),
            "orchestrator-plugin", Set.of("engines"),
            "store-jdbc", Set.of("orchestrator-plugin", "engines"),
            "runtime-kubernetes", Set.of("orchestrator-plugin", "engines"),
            "agent-verbs", Set.of("orchestrator-plugin", "engines"),
            "janitor", Set.of("orchestrator-plugin", "engines"),
            "dashboard", Set.of("orchestrator-plugin", "engines"),
            "server",
                    Set.of(
                            "orchestrator-plugin",
                            "engines",
                            "sql-inspect",
                            "store-jdbc",
                            "runtime-kubernetes",
                            "agent-verbs",
                            "janitor",
                            "dashboard"));

    private static final Pattern MODULE = Pattern.compile("/([a-z-]+)/target/");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("/testkit/target/"))
                // Under 'verify' the reactor hands other modules' test classes over as their -tests.jar, which
                // DO_NOT_INCLUDE_TESTS (it looks for /test-classes/) does not recognise.
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.roboco.sandbox");
    }

    @Test
    void everyClassComesFromAKnownModule() {
        Set<String> found = new TreeSet<>();
        for (JavaClass c : classes) {
            String module = moduleOf(c);
            assertThat(MAY_USE)
                    .as(
                            "%s was loaded from module '%s', which MAY_USE does not list; add the module with"
                                    + " what it may depend on (DESIGN.md section 2)",
                            c.getName(), module)
                    .containsKey(module);
            found.add(module);
        }
        assertThat(found)
                .as("the main classes of every module are on this test's classpath")
                .isEqualTo(MAY_USE.keySet());
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.roboco.sandbox.(**)")
                .namingSlices("$1")
                .should()
                .beFreeOfCycles()
                // The one registry line per engine (EngineRegistry.defaults() naming engine.postgres, engine.redis,
                // engine.mongo, which implement the SPI in engine) is the composition DESIGN.md asks for. Moving
                // defaults() into a package of its own would let this exception go.
                .ignoreDependency(
                        DescribedPredicate.describe(
                                "EngineRegistry",
                                (JavaClass c) -> c.getName().equals("io.roboco.sandbox.engine.EngineRegistry")),
                        DescribedPredicate.describe(
                                "an engine's own package",
                                (JavaClass c) -> c.getPackageName().startsWith("io.roboco.sandbox.engine.")))
                .check(classes);
    }

    @Test
    void noModuleUsesAModuleItMayNot() {
        for (Map.Entry<String, Set<String>> rule : MAY_USE.entrySet()) {
            String module = rule.getKey();
            List<String> forbidden = MAY_USE.keySet().stream()
                    .filter(other -> !other.equals(module) && !rule.getValue().contains(other))
                    .sorted()
                    .toList();
            if (forbidden.isEmpty()) {
                continue;
            }
            noClasses()
                    .that(inModule(module))
                    .should()
                    .dependOnClassesThat(inAnyModule(forbidden))
                    .because(module + " may use only "
                            + (rule.getValue().isEmpty() ? "the JDK and its drivers" : rule.getValue())
                            + " (DESIGN.md section 2)")
                    .check(classes);
        }
    }

    @Test
    void theDashboardNeverReachesTheServerAndTheCoreNeverReachesWhatSitsOnIt() {
        noClasses()
                .that(inModule("dashboard"))
                .should()
                .dependOnClassesThat(inAnyModule(List.of("server")))
                .because("pages read through plugin.OperatorConsole, never the server's routes, config or store")
                .check(classes);
        noClasses()
                .that(inAnyModule(List.of("engines", "orchestrator-plugin")))
                .should()
                .dependOnClassesThat(inAnyModule(
                        List.of("server", "store-jdbc", "dashboard", "agent-verbs", "janitor", "runtime-kubernetes")))
                .because(
                        "the core is embeddable without the server, the JDBC store, the Kubernetes runtime, the pages or"
                                + " the verb layer")
                .check(classes);
    }

    private static DescribedPredicate<JavaClass> inModule(String module) {
        return DescribedPredicate.describe("are in module " + module, c -> module.equals(moduleOf(c)));
    }

    private static DescribedPredicate<JavaClass> inAnyModule(List<String> modules) {
        return DescribedPredicate.describe(
                "are in module " + String.join(" or ", modules), c -> modules.contains(moduleOf(c)));
    }

    private static String moduleOf(JavaClass c) {
        String uri = c.getSource().map(s -> s.getUri().toString()).orElse("");
        Matcher m = MODULE.matcher(uri);
        String module = null;
        while (m.find()) {
            module = m.group(1);
        }
        return module == null ? "unknown (" + uri + ")" : module;
    }
}
