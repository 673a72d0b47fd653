package io.roboco.sandbox.server.http;

/** An HTTP error answer: status, a stable error code and a message safe to show the caller. */
final class ApiError extends RuntimeException {
    private final int status;
    private final String code;

    ApiError(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    static ApiError badRequest(String message) {
        return new ApiError(400, "bad_request", message);
    }

    static ApiError notFound(String message) {
        return new ApiError(404, "not_found", message);
    }

    int status() {
        return status;
    }

    String code() {
        return code;
    }
}
