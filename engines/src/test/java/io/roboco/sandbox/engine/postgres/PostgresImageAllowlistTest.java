package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The local Postgres images keep only the allowlisted extensions' control files (images/postgres/Dockerfile's
 * {@code ALLOWED_EXTENSIONS}), which is what stops an agent, as its database's owner, creating a trusted extension
 * off the allowlist (ExtensionContainmentIT proves that on the built images). The two lists must not drift: a
 * feature added to the engine but not to the image would be unusable, one in the image but not the engine a hole.
 */
class PostgresImageAllowlistTest {
    private static final Path DOCKERFILE = Path.of("..", "images", "postgres", "Dockerfile");

    @Test
    void theImageKeepsExactlyTheEnginesAllowlistAndPlpgsql() throws Exception {
        Matcher m = Pattern.compile("(?m)^ARG ALLOWED_EXTENSIONS=\"([^\"]*)\"$").matcher(Files.readString(DOCKERFILE));
        assertThat(m.find())
                .as("%s declares ARG ALLOWED_EXTENSIONS=\"…\"", DOCKERFILE)
                .isTrue();
        Set<String> image = new TreeSet<>(Set.of(m.group(1).trim().split("\\s+")));

        Set<String> expected = new TreeSet<>(new PostgresEngine().features());
        expected.add("plpgsql");
        assertThat(image).isEqualTo(expected);
    }
}
