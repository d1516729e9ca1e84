package dev.limiter.sample;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An imitation of an LLM completion API, limited in tokens per minute per user (limiter
 * {@code completion-tokens}, X-User-Id): a call reserves the {@code maxTokens} it asks for before it
 * runs, and settles what its answer's usage says it cost once it has answered. A short prompt gives most
 * of the reservation back; a long one costs more than it reserved and takes the user into debt, so the
 * next calls are rejected (429) until the debt is paid off (docs/settled-costs.md).
 */
@RestController
@RequestMapping("/api")
public class CompletionController {

    @PostMapping("/completions")
    @RateLimited(name = "completion-tokens", key = "#userId", cost = "#request.maxTokens", settle = "#result.usage.totalTokens")
    public Completion complete(@RequestHeader("X-User-Id") String userId, @RequestBody CompletionRequest request) {
        // A stand-in for the model: a token per word of the prompt, and an answer twice as long, cut at maxTokens.
        int promptTokens = request.prompt().isBlank() ? 0 : request.prompt().strip().split("\\s+").length;
        int completionTokens = Math.min(request.maxTokens(), 2 * promptTokens);
        return new Completion("lorem ipsum ".repeat(completionTokens).strip(),
                new Usage(promptTokens, completionTokens, promptTokens + completionTokens));
    }

    /** What the client asks: a prompt and the most tokens the answer may have, which the call reserves. */
    public record CompletionRequest(String prompt, int maxTokens) {
    }

    /** The answer and what it cost, which the call settles. */
    public record Completion(String text, Usage usage) {
    }

    /** Tokens of the prompt and of the answer: the prompt's count too, so the total may exceed maxTokens. */
    public record Usage(int promptTokens, int completionTokens, int totalTokens) {
    }
}
