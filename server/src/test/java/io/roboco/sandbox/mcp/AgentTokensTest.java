package io.roboco.sandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.AgentToken;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AgentTokensTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T12:00:00Z"));
    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private final AgentTokens tokens = new AgentTokens(store, Duration.ofHours(1), clock);

    @Test
    void aTokenWorksUntilItsExpiry() {
        AgentTokens.Minted minted = tokens.mint("dev-1");
        assertThat(minted.expires()).isEqualTo(clock.instant().plus(Duration.ofHours(1)));
        assertThat(minted.toString()).doesNotContain(minted.token());
        assertThat(tokens.agentFor(minted.token())).contains("dev-1");
        clock.advance(Duration.ofMinutes(59));
        assertThat(tokens.agentFor(minted.token())).contains("dev-1");
        clock.advance(Duration.ofMinutes(1));
        assertThat(tokens.agentFor(minted.token())).isEmpty();
    }

    @Test
    void aTokenIsBoundToTheEngagementItWasMintedFor() {
        store.beginEngagement("dev-1", "eng_first", clock.instant());
        String token = tokens.mint("dev-1").token();
        assertThat(store.findToken(AgentTokens.digest(token)))
                .hasValueSatisfying(t -> assertThat(t.engagement()).isEqualTo("eng_first"));
        store.beginEngagement("dev-1", "eng_second", clock.instant());
        assertThat(tokens.agentFor(token)).isEmpty();
    }

    @Test
    void aTokenWhoseRowOutlivedItsEngagementStillStops() {
        String token = tokens.mint("dev-1").token();
        String engagement = store.engagement("dev-1").orElseThrow();
        // The engagement row replaced without the token row (another writer, a partial restore): the binding still
        // holds.
        store.saveToken(store.findToken(AgentTokens.digest(token)).orElseThrow());
        store.endEngagement("dev-1");
        store.saveToken(new AgentToken(
                "dev-1",
                AgentTokens.digest(token),
                engagement,
                clock.instant(),
                clock.instant().plus(Duration.ofHours(1))));
        assertThat(tokens.agentFor(token)).isEmpty();
    }

    @Test
    void mintingWithoutASpawnBeginsAnEngagement() {
        assertThat(store.engagement("dev-9")).isEmpty();
        String token = tokens.mint("dev-9").token();
        assertThat(store.engagement("dev-9")).isPresent();
        assertThat(tokens.agentFor(token)).contains("dev-9");
    }
}
