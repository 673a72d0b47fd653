package io.roboco.sandbox.progress;

import io.roboco.sandbox.template.PhysicalCopy;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateLimits;
import io.roboco.sandbox.template.TemplateStore;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TemplateStore} that knows which dumps (and physical copies) are being read (a template restored into a new sandbox) or written (a
 * template saved) right now, and how far each has got, per project: the detail of a progress report
 * ({@link ProgressTicker}). Everything else is the wrapped store's.
 */
public final class TemplateTraffic implements TemplateStore {
    private final TemplateStore store;
    private final Map<Transfer, Boolean> open = new ConcurrentHashMap<>();

    /** One dump or physical copy on its way: {@code restore} read from the store, else written to it. */
    private record Transfer(
            String project, String name, boolean restore, boolean physical, long total, AtomicLong bytes) {
        String describe() {
            String done = megabytes(bytes.get()) + (total > 0 ? " of " + megabytes(total) : "") + " MB";
            if (restore) {
                return "restoring template '" + name + "': " + done
                        + (physical ? " of its data directory copied" : " read");
            }
            return "saving template '" + name + "': " + done
                    + (physical ? " of its data directory copied" : " written");
        }
    }

    public TemplateTraffic(TemplateStore store) {
        this.store = store;
    }

    /** What is being restored or saved in {@code project} now, e.g. "restoring template 'big': 23.1 of 54.0 MB read". */
    public Optional<String> now(String project) {
        List<String> out = new ArrayList<>();
        for (Transfer t : open.keySet()) {
            if (t.project().equals(project)) {
                out.add(t.describe());
            }
        }
        return out.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", out));
    }

    @Override
    public InputStream open(String project, String name) throws IOException {
        InputStream in = store.open(project, name);
        long total = store.find(project, name).map(TemplateInfo::sizeBytes).orElse(0L);
        return counted(in, new Transfer(project, name, true, false, total, new AtomicLong()));
    }

    @Override
    public InputStream openPhysical(String project, String name) throws IOException {
        InputStream in = store.openPhysical(project, name);
        long total = store.find(project, name)
                .map(TemplateInfo::physical)
                .map(PhysicalCopy::sizeBytes)
                .orElse(0L);
        return counted(in, new Transfer(project, name, true, true, total, new AtomicLong()));
    }

    private InputStream counted(InputStream in, Transfer t) {
        open.put(t, Boolean.TRUE);
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    t.bytes().incrementAndGet();
                }
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                if (n > 0) {
                    t.bytes().addAndGet(n);
                }
                return n;
            }

            @Override
            public void close() throws IOException {
                open.remove(t);
                super.close();
            }
        };
    }

    @Override
    public TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) throws Exception {
        Transfer t = new Transfer(info.project(), info.name(), false, false, 0, new AtomicLong());
        open.put(t, Boolean.TRUE);
        try {
            return store.save(info, out -> dump.writeTo(counted(out, t)), replace);
        } finally {
            open.remove(t);
        }
    }

    @Override
    public TemplateInfo savePhysical(String project, String name, Instant created, PhysicalArchive archive)
            throws Exception {
        Transfer t = new Transfer(project, name, false, true, 0, new AtomicLong());
        open.put(t, Boolean.TRUE);
        try {
            return store.savePhysical(project, name, created, out -> archive.writeTo(counted(out, t)));
        } finally {
            open.remove(t);
        }
    }

    @Override
    public boolean keepsPhysicalCopies() {
        return store.keepsPhysicalCopies();
    }

    @Override
    public boolean keepsPhysicalCopyOf(TemplateInfo saved) {
        return store.keepsPhysicalCopyOf(saved);
    }

    private static OutputStream counted(OutputStream out, Transfer t) {
        return new FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
                t.bytes().incrementAndGet();
            }

            @Override
            public void write(byte[] buf, int off, int len) throws IOException {
                out.write(buf, off, len);
                t.bytes().addAndGet(len);
            }
        };
    }

    @Override
    public List<TemplateInfo> list(String project) {
        return store.list(project);
    }

    @Override
    public List<TemplateInfo> listAll() {
        return store.listAll();
    }

    @Override
    public Optional<TemplateInfo> find(String project, String name) {
        return store.find(project, name);
    }

    @Override
    public TemplateInfo copy(String from, String name, String to, String as, boolean replace) throws Exception {
        return store.copy(from, name, to, as, replace);
    }

    @Override
    public boolean delete(String project, String name) throws IOException {
        return store.delete(project, name);
    }

    @Override
    public TemplateLimits limits() {
        return store.limits();
    }

    private static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1_000_000.0);
    }
}
