package io.roboco.sandbox.limits;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The first thing every request meets, on every route (API, dashboard forms, {@code /mcp}): a request body is at
 * most {@code maxBody} bytes ({@code ROBOCO_SANDBOX_MAX_BODY}), a form's at most {@code maxFormBody}
 * ({@code ROBOCO_SANDBOX_MAX_FORM_BODY}). A declared length over the limit is answered 413 before a byte is read;
 * a chunked body is counted as it is read and answered 413 the moment it passes the limit, so no route ever holds
 * more than the limit. Either way the rest of the body is read and thrown away (up to {@link #DRAIN_MAX}) before the
 * connection is closed, so the client reads the 413 instead of a reset connection. A route whose framework catches
 * the {@link BodyTooLarge} itself (Javalin's exception mapping) answers the 413 there; the filter drains after it.
 */
public final class BodyLimitFilter implements Filter {
    /** The most of an over-limit body read and discarded after the 413; past it the connection is simply closed. */
    static final long DRAIN_MAX = 64L << 20;

    private final long maxBody;
    private final long maxFormBody;

    public BodyLimitFilter(long maxBody, long maxFormBody) {
        this.maxBody = maxBody;
        this.maxFormBody = maxFormBody;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        HttpServletResponse resp = (HttpServletResponse) response;
        boolean form = isForm(req.getContentType());
        long limit = form ? maxFormBody : maxBody;
        long declared = req.getContentLengthLong();
        if (declared > limit) {
            refuse(req, resp, limit, form);
            return;
        }
        try {
            chain.doFilter(new Limited(req, limit), resp);
            if (resp.getStatus() == 413) {
                // A route answered the over-limit body itself (its framework caught the BodyTooLarge): drain what is
                // left.
                drain(req);
            }
        } catch (BodyTooLarge e) {
            refuse(req, resp, limit, form);
        } catch (ServletException | RuntimeException e) {
            if (causedByTooLarge(e)) {
                refuse(req, resp, limit, form);
            } else {
                throw e;
            }
        }
    }

    /** Whether a route answered 413 because its body went past the limit (wrapped by a framework on the way). */
    private static boolean causedByTooLarge(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BodyTooLarge) {
                return true;
            }
        }
        return false;
    }

    private static boolean isForm(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.toLowerCase(Locale.ROOT);
        return type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data");
    }

    private static void refuse(HttpServletRequest req, HttpServletResponse resp, long limit, boolean form)
            throws IOException {
        if (!resp.isCommitted()) {
            resp.resetBuffer();
            resp.setStatus(413);
            resp.setHeader("Connection", "close");
            resp.setContentType("application/json");
            String message = "the request body is larger than " + limit + " bytes, the most this server accepts"
                    + (form ? " for a form (ROBOCO_SANDBOX_MAX_FORM_BODY)" : " (ROBOCO_SANDBOX_MAX_BODY)")
                    + "; send a smaller one";
            byte[] body =
                    ("{\"error\":\"too_large\",\"message\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
            resp.flushBuffer();
        }
        drain(req);
    }

    /** Reads and discards what is left of the body, up to {@link #DRAIN_MAX}. */
    private static void drain(HttpServletRequest req) {
        try {
            InputStream in = req.getInputStream();
            byte[] sink = new byte[16384];
            long read = 0;
            for (int n; read < DRAIN_MAX && (n = in.read(sink)) != -1; ) {
                read += n;
            }
        } catch (IOException | RuntimeException e) {
            // The client went away or the body is malformed: nothing is left to answer.
        }
    }

    /** The request, its body counted as it is read: past {@code limit} bytes a read throws {@link BodyTooLarge}. */
    private static final class Limited extends HttpServletRequestWrapper {
        private final long limit;
        private ServletInputStream counted;

        Limited(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public synchronized ServletInputStream getInputStream() throws IOException {
            if (counted == null) {
                counted = new Counted(super.getInputStream(), limit);
            }
            return counted;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            return new BufferedReader(new InputStreamReader(
                    getInputStream(), encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding)));
        }
    }

    private static final class Counted extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long count;

        Counted(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b != -1) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws BodyTooLarge {
            count += n;
            if (count > limit) {
                throw new BodyTooLarge(limit);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
