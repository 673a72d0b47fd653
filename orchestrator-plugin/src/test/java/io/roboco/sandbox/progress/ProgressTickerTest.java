package io.roboco.sandbox.progress;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateLimits;
import io.roboco.sandbox.template.TemplateStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProgressTickerTest {
    @Test
    void aRunningCallTicksWithAGrowingStepAndItsDetailUntilClosed() throws Exception {
        List<ProgressTicker.Tick> ticks = new CopyOnWriteArrayList<>();
        CountDownLatch three = new CountDownLatch(3);
        try (ProgressTicker ticker = new ProgressTicker(Duration.ofMillis(10), "test-progress")) {
            ProgressTicker.Ticking ticking = ticker.start("checkpoint_sandbox", () -> Optional.of("copying"), tick -> {
                ticks.add(tick);
                three.countDown();
            });
            assertThat(three.await(30, TimeUnit.SECONDS)).isTrue();
            ticking.close();
            int atClose = ticks.size();
            // After close returns, no tick is sent: the next scheduled run (if any) finds the call closed.
            ProgressTicker.Ticking other = ticker.start("other", Optional::empty, tick -> {});
            other.close();
            assertThat(ticks).hasSize(atClose);
        }
        assertThat(ticks).extracting(ProgressTicker.Tick::step).startsWith(1L, 2L, 3L);
        assertThat(ticks.get(0).message()).matches("checkpoint_sandbox running for \\d+ s; copying");
    }

    @Test
    void aSinkThatFailsDoesNotStopTheTicks() throws Exception {
        CountDownLatch two = new CountDownLatch(2);
        try (ProgressTicker ticker = new ProgressTicker(Duration.ofMillis(10), "test-progress");
                ProgressTicker.Ticking ignored = ticker.start("x", Optional::empty, tick -> {
                    two.countDown();
                    throw new IOException("client gone");
                })) {
            assertThat(two.await(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void templateTrafficSaysHowFarARestoreHasGot() throws Exception {
        byte[] dump = new byte[3_000_000];
        TemplateInfo info =
                new TemplateInfo("big", "shop", "sbx_1", "17", "17.2", dump.length, Instant.EPOCH, "d", List.of());
        TemplateTraffic traffic = new TemplateTraffic(new OneTemplate(info, dump));
        assertThat(traffic.now("shop")).isEmpty();
        try (InputStream in = traffic.open("shop", "big")) {
            in.readNBytes(1_500_000);
            assertThat(traffic.now("shop")).contains("restoring template 'big': 1.5 of 3.0 MB read");
            assertThat(traffic.now("other")).isEmpty();
        }
        assertThat(traffic.now("shop")).as("a closed stream is done").isEmpty();
    }

    /** A store of one template. */
    private record OneTemplate(TemplateInfo info, byte[] dump) implements TemplateStore {
        @Override
        public List<TemplateInfo> list(String project) {
            return List.of(info);
        }

        @Override
        public List<TemplateInfo> listAll() {
            return List.of(info);
        }

        @Override
        public Optional<TemplateInfo> find(String project, String name) {
            return Optional.of(info);
        }

        @Override
        public TemplateInfo save(TemplateInfo i, Dump d, boolean replace) {
            throw new UnsupportedOperationException();
        }

        @Override
        public TemplateInfo copy(String from, String name, String to, String as, boolean replace) {
            throw new UnsupportedOperationException();
        }

        @Override
        public InputStream open(String project, String name) throws IOException {
            return new ByteArrayInputStream(dump);
        }

        @Override
        public boolean delete(String project, String name) {
            return false;
        }

        @Override
        public TemplateLimits limits() {
            return TemplateLimits.defaults();
        }
    }
}
