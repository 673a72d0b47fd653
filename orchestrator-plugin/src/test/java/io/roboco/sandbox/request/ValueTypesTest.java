package io.roboco.sandbox.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.NameShape;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The value types own their syntax: one shape each, refusals that name it, lengths that agree with the expressions. */
class ValueTypesTest {
    @Test
    void eachShapeMatchesItsLongestNameAndNothingLonger() {
        for (NameShape shape : List.of(
                AgentSlug.SHAPE,
                ServiceName.SHAPE,
                Role.SHAPE,
                ProjectId.SHAPE,
                SandboxName.SHAPE,
                TemplateName.SHAPE,
                SnapshotName.SHAPE,
                CheckpointName.SHAPE)) {
            assertThat(shape.matches("a".repeat(shape.maxLength())))
                    .as(shape.toString())
                    .isTrue();
            assertThat(shape.matches("a".repeat(shape.maxLength() + 1)))
                    .as(shape.toString())
                    .isFalse();
        }
        assertThat(Owner.SHAPE.matches("job:" + "a".repeat(63))).isTrue();
        assertThat(Owner.SHAPE.maxLength()).isEqualTo(67);
    }

    @Test
    void refusalsAreBadRequestsNamingTheShape() {
        assertThatThrownBy(() -> AgentSlug.parse("Dev 1"))
                .isInstanceOf(BadRequest.class)
                .hasMessage("agent slug 'Dev 1' is malformed; expected [a-z0-9][a-z0-9_.-]{0,62}");
        assertThatThrownBy(() -> ServiceName.parse("Postgres"))
                .isInstanceOf(BadRequest.class)
                .hasMessage("service name 'Postgres' is malformed; expected [a-z][a-z0-9_-]{0,31}");
        assertThatThrownBy(() -> ProjectId.parse("a/b"))
                .isInstanceOf(BadRequest.class)
                .hasMessage("project id 'a/b' is malformed; expected [A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
        assertThatThrownBy(() -> Owner.parse("job:"))
                .isInstanceOf(BadRequest.class)
                .hasMessage(
                        "owner 'job:' is malformed; expected an agent slug [a-z0-9][a-z0-9_.-]{0,62}, or job:<name> for a CI job");
        assertThatThrownBy(() -> Role.parse("Wizard!"))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("role 'Wizard!'");
        assertThatThrownBy(() -> TemplateName.parse("template", "../x"))
                .isInstanceOf(BadRequest.class)
                .hasMessage(
                        "'template' must be a template name (1-30 of a-z 0-9 _ -, starting with a letter or digit); got '../x'");
        assertThatThrownBy(() -> TemplateName.parse("template", 7))
                .isInstanceOf(BadRequest.class)
                .hasMessage(
                        "'template' must be a template name (1-30 of a-z 0-9 _ -, starting with a letter or digit)");
    }

    @Test
    void ownersAreAgentsOrCiJobsAndNeverBoth() {
        assertThat(Owner.parse("dev-1").isJob()).isFalse();
        assertThat(Owner.parse("job:ci-42").isJob()).isTrue();
        assertThat(AgentSlug.isValid("job:ci-42"))
                .as("no slug takes the job form")
                .isFalse();
        assertThat(Owner.isJob(null)).isFalse();
    }

    @Test
    void aNamedSandboxIsNeverCalledDefault() {
        assertThat(SandboxName.parseNamed("name", "migration").value()).isEqualTo("migration");
        assertThatThrownBy(() -> SandboxName.parseNamed("name", "default"))
                .isInstanceOf(BadRequest.class)
                .hasMessage("'name' must not be 'default': that is the name of an agent's request_sandbox set");
        assertThatThrownBy(() -> SandboxName.parseNamed("name", "-x"))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'name' must be a sandbox name (1-63 characters");
        assertThat(SandboxName.NAMED.matches("default")).isFalse();
        assertThat(SandboxName.SHAPE.matches("default")).isTrue();
    }

    @Test
    void snapshotTemplateAndCheckpointNamesShareOneShape() {
        assertThat(TemplateName.SHAPE.regex())
                .isEqualTo(CheckpointName.SHAPE.regex())
                .isEqualTo(SnapshotName.SHAPE.regex());
        assertThat(SnapshotName.SHAPE.malformed("X")).startsWith("snapshot name 'X'");
    }
}
