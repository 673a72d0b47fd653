package io.roboco.sandbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "A new engine is one class and one registry line" (DESIGN.md, issue 19 item 3): nothing outside the {@code engines}
 * module's packages ({@code engine}, {@code engine.<name>}) uses an engine's own package — the inspection library
 * ({@code inspect}, module {@code sql-inspect}, which speaks each engine's driver) included: what it needs of an engine
 * it asks the {@code Engine} SPI (e.g. {@code featureOfLoaded}) —
 * {@code io.roboco.sandbox.engine.<name>}; the core asks the registry and the {@code Engine} SPI's optional capabilities
 * ({@code poolSeeding()}, and the data features {@code seeds()}, {@code dumps()}, {@code checkpoints()},
 * {@code schemaSnapshots()}: {@code registry.offering(Engine::checkpoints)}).
 *
 * <p>Checked twice: on the compiled classes of every module on the server's class path (ArchUnit: the core, sql-inspect,
 * store-jdbc, runtime-kubernetes, agent-verbs, janitor, dashboard, server), and on the main sources of every module
 * outside engines (bench and examples too), which also see a constant the compiler copied into the class that reads it
 * (a {@code static final} of an engine's class leaves no dependency behind).
 */
class EngineConfinementTest {
    private static final Pattern ENGINE_PACKAGE = Pattern.compile("io\\.roboco\\.sandbox\\.engine\\.[a-z0-9]+(\\..*)?");
    private static final Pattern ENGINE_PACKAGE_IN_SOURCE =
            Pattern.compile("io\\.roboco\\.sandbox\\.engine\\.[a-z0-9]+\\.[\\w.]*");

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
        Set<String> evidence = new TreeSet<>();
        for (JavaClass c : classes) {
            if (isEnginesModule(c)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (ENGINE_PACKAGE.matcher(d.getTargetClass().getPackageName()).matches()) {
                    evidence.add(d.getDescription());
                }
            }
        }
        assertThat(evidence)
                .as("classes outside engines using an engine's own package (ask the registry or an Engine"
                        + " capability instead)")
                .isEmpty();
    }

    @Test
    void noMainSourceOutsideEnginesNamesAnEnginesOwnPackage() throws IOException {
        Path root = repositoryRoot();
        Set<String> evidence = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file :
                    files.filter(f -> isMainSourceOutsideEngines(root, f)).toList()) {
                Matcher m = ENGINE_PACKAGE_IN_SOURCE.matcher(read(file));
                while (m.find()) {
                    evidence.add(root.relativize(file) + ": " + m.group());
                }
            }
        }
        assertThat(evidence)
                .as("main sources outside engines naming an engine's own package (ask the registry or an Engine"
                        + " capability instead)")
                .isEmpty();
    }

    private static boolean isEnginesModule(JavaClass c) {
        String p = c.getPackageName();
        return p.equals("io.roboco.sandbox.engine") || p.startsWith("io.roboco.sandbox.engine.");
    }

    private static boolean isMainSourceOutsideEngines(Path root, Path file) {
        String path = root.relativize(file).toString().replace('\\', '/');
        return path.endsWith(".java")
                && path.contains("/src/main/java/")
                && !path.startsWith("engines/")
                && !path.startsWith("images/")
                && !path.contains("/target/");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("orchestrator-plugin"))) {
            dir = dir.getParent();
        }
        assertThat(dir)
                .as("repository root above " + Path.of("").toAbsolutePath())
                .isNotNull();
        return dir;
    }
}
