package io.roboco.sandbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "A new engine is one class and one registry line" (DESIGN.md, issue 19 item 3): nothing outside the {@code engines}
 * module's packages ({@code engine}, {@code engine.<name>}) and the inspection library's ({@code inspect}, module
 * {@code sql-inspect}, which speaks each engine's driver) uses an engine's own package
 * {@code io.roboco.sandbox.engine.<name>}; the core asks the registry and the {@code Engine} SPI's optional capabilities.
 *
 * <p>{@link #NOT_YET_MOVED} names the classes that still reach into {@code engine.postgres} for the data features (seed,
 * templates, schema snapshots, checkpoints), until those become an engine capability. The list may only shrink: a new
 * class using an engine's package fails, and so does a listed class that no longer does (remove it from the list).
 */
class EngineConfinementTest {
    private static final Pattern ENGINE_PACKAGE = Pattern.compile("io\\.roboco\\.sandbox\\.engine\\.[a-z0-9]+(\\..*)?");
    private static final Set<String> NOT_YET_MOVED = Set.of(
            "io.roboco.sandbox.data.SandboxData",
            "io.roboco.sandbox.data.TemplateSaving",
            "io.roboco.sandbox.provision.Seeding",
            "io.roboco.sandbox.provision.StartDiagnosis",
            "io.roboco.sandbox.settings.StoredSnapshot",
            "io.roboco.sandbox.store.JdbcSnapshots");

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
    void nothingOutsideEnginesImportsAnEnginesOwnPackage() {
        Set<String> using = new TreeSet<>();
        Set<String> evidence = new TreeSet<>();
        for (JavaClass c : classes) {
            if (isEnginesModule(c)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (ENGINE_PACKAGE.matcher(d.getTargetClass().getPackageName()).matches()) {
                    String outer = outermost(c);
                    using.add(outer);
                    if (!NOT_YET_MOVED.contains(outer)) {
                        evidence.add(d.getDescription());
                    }
                }
            }
        }
        assertThat(evidence)
                .as("classes outside engines using an engine's own package (ask the registry or an Engine"
                        + " capability instead)")
                .isEmpty();
        assertThat(NOT_YET_MOVED)
                .as("NOT_YET_MOVED lists only classes that still use an engine's package; remove the others")
                .isSubsetOf(using);
    }

    private static boolean isEnginesModule(JavaClass c) {
        String p = c.getPackageName();
        return p.equals("io.roboco.sandbox.engine")
                || p.startsWith("io.roboco.sandbox.engine.")
                || p.equals("io.roboco.sandbox.inspect")
                || p.startsWith("io.roboco.sandbox.inspect.");
    }

    private static String outermost(JavaClass c) {
        String name = c.getName();
        int dollar = name.indexOf('$');
        return dollar < 0 ? name : name.substring(0, dollar);
    }
}
