package dev.limiter.outgoing;

import java.io.IOException;
import java.io.InterruptedIOException;

import dev.limiter.outgoing.internal.OutgoingCalls;
import dev.limiter.outgoing.internal.Pause;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Limits the calls of a {@code RestClient} or {@code RestTemplate} by {@code limiter.outgoing}: a call
 * of a route waits on its thread for a hold the upstream asked for and for its permit, up to the
 * limiter's max-wait, else fails with {@link OutgoingCallRejectedException} without being sent; its
 * answer may hold the key for every instance. Calls no route takes go out as they are. Auto-configured
 * into every builder Spring Boot makes; {@code builder.requestInterceptor(interceptor)} adds it to others.
 */
public final class LimiterClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

    private final OutgoingCalls calls;

    private final Pause pause;

    public LimiterClientHttpRequestInterceptor(OutgoingCalls calls) {
        this(calls, Pause.SLEEP);
    }

    /** For tests that drive time: {@code pause} waits instead of the thread sleeping. */
    public LimiterClientHttpRequestInterceptor(OutgoingCalls calls, Pause pause) {
        this.calls = calls;
        this.pause = pause;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
        OutgoingCalls.Call call = calls.call(new OutgoingRequest(request.getMethod(), request.getURI(), request.getHeaders()));
        if (call == null) {
            return execution.execute(request, body);
        }
        try {
            call.admit(pause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while waiting for a permit of limiter '"
                    + call.limiter().name() + "' for " + request.getMethod() + " " + request.getURI());
            interrupted.initCause(ex);
            throw interrupted;
        }
        ClientHttpResponse response = execution.execute(request, body);
        call.answered(response.getStatusCode().value(), response.getHeaders());
        return response;
    }
}
