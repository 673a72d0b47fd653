package io.roboco.sandbox.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** doctor runs scripts/build-images.sh only from the checkout it was built in, or an absolute ROBOCO_REPO_ROOT: never one found from the working directory. */
class DoctorRepoRootTest {
    @TempDir
    Path dir;

    private Path checkout(String name) throws IOException {
        Path root = dir.resolve(name);
        Files.createDirectories(root.resolve("scripts"));
        Files.createDirectories(root.resolve("images"));
        Files.writeString(root.resolve(Doctor.BUILD_SCRIPT), "#!/bin/bash\n");
        return root;
    }

    @Test
    void theCheckoutTheJarOrClassesWereBuiltIn() throws IOException {
        Path root = checkout("repo");
        assertThat(Doctor.findRepoRoot(Map.of(), root.resolve("server/target/roboco-sandbox.jar")))
                .isEqualTo(root);
        assertThat(Doctor.findRepoRoot(Map.of(), root.resolve("server/target/classes")))
                .isEqualTo(root);
    }

    @Test
    void nothingFromTheWorkingDirectoryOrItsParents() throws IOException {
        Path trap = checkout("agents-checkout");
        Path installed = dir.resolve("opt/roboco-sandbox.jar");
        assertThat(Doctor.findRepoRoot(Map.of(), installed))
                .as("a jar outside a checkout")
                .isNull();
        assertThat(Doctor.findRepoRoot(Map.of(), null)).isNull();
        assertThat(Doctor.findRepoRoot(Map.of(), trap.resolve("lib/x.jar")))
                .as("not <root>/server/target")
                .isNull();
    }

    @Test
    void anAbsoluteRepoRootIsTakenARelativeOneNever() throws IOException {
        Path root = checkout("given");
        assertThat(Doctor.findRepoRoot(Map.of("ROBOCO_REPO_ROOT", root.toString()), null))
                .isEqualTo(root);
        assertThat(Doctor.findRepoRoot(Map.of("ROBOCO_REPO_ROOT", "."), root.resolve("server/target/classes")))
                .as("relative: resolved against the working directory, so refused")
                .isNull();
        assertThat(Doctor.findRepoRoot(
                        Map.of("ROBOCO_REPO_ROOT", dir.resolve("empty").toString()), null))
                .isNull();
    }

    @Test
    void thePathTheScriptRunsWithKeepsOnlyAbsoluteEntries() {
        assertThat(Doctor.absoluteEntries(".:/usr/bin::bin:/bin:")).isEqualTo("/usr/bin:/bin");
    }
}
