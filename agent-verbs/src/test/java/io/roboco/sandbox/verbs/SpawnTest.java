package io.roboco.sandbox.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.request.BadRequest;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SpawnTest {
    private VerbsFixture fixture;

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void developerInOptedInProjectGetsMarkerAndOneBriefingLine() {
        fixture = new VerbsFixture(true);
        SpawnManifest manifest = fixture.verbs.spawn("dev-1", "developer", "shop");
        assertThat(manifest.env()).containsExactly(Map.entry(SpawnManifest.SERVICES_MARKER, "postgres,redis"));
        assertThat(manifest.briefing()).hasSize(1);
        assertThat(manifest.briefing().get(0)).contains("request_sandbox()").contains("postgres, redis");
        assertThat(manifest.verbs()).contains(VerbNames.REQUEST_SANDBOX, VerbNames.RELEASE_SANDBOX);
    }

    @Test
    void markerAbsentForReviewer() {
        fixture = new VerbsFixture(true);
        SpawnManifest manifest = fixture.verbs.spawn("rev-1", "reviewer", "shop");
        assertThat(manifest.env()).isEmpty();
        assertThat(manifest.briefing()).isEmpty();
        assertThat(manifest.verbs()).doesNotContain(VerbNames.REQUEST_SANDBOX);
    }

    @Test
    void markerAbsentForProjectNotOptedIn() {
        fixture = new VerbsFixture(true);
        assertThat(fixture.verbs.spawn("dev-1", "developer", "plain").env()).isEmpty();
        assertThat(fixture.verbs.spawn("dev-2", "developer", "unknown-project").env())
                .isEmpty();
        assertThat(fixture.verbs.spawn("dev-3", "developer", null).briefing()).isEmpty();
    }

    @Test
    void markerAbsentWhenFlagIsOff() {
        fixture = new VerbsFixture(false);
        SpawnManifest manifest = fixture.verbs.spawn("dev-1", "qa", "shop");
        assertThat(manifest.env()).isEmpty();
        assertThat(manifest.briefing()).isEmpty();
    }

    @Test
    void spawnNeverCarriesCredentials() {
        fixture = new VerbsFixture(true);
        SpawnManifest manifest = fixture.verbs.spawn("dev-1", "developer", "shop");
        assertThat(manifest.env().keySet()).allMatch(k -> !k.startsWith("ROBOCO_TEST_"));
        assertThat(fixture.runtime.startCount()).isZero();
    }

    @Test
    void spawnRegistersTheAgentWithoutATask() {
        fixture = new VerbsFixture(true);
        fixture.verbs.spawn("dev-1", "developer", "shop");
        assertThat(fixture.store.findAgent("dev-1")).hasValueSatisfying(a -> {
            assertThat(a.role()).isEqualTo("developer");
            assertThat(a.hasActiveTask()).isFalse();
        });
    }

    @Test
    void malformedSlugOrUnknownRoleIsRejected() {
        fixture = new VerbsFixture(true);
        assertThatThrownBy(() -> fixture.verbs.spawn("Dev 1", "developer", "shop"))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("agent slug");
        assertThatThrownBy(() -> fixture.verbs.spawn("dev-1", "wizard", "shop")).isInstanceOf(BadRequest.class);
    }
}
