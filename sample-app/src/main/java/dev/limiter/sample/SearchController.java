package dev.limiter.sample;

import java.util.List;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Search, limited per user by two limits at once (limiter {@code search} in application.yml): a
 * short one against bursts and a longer one against sustained scraping. A rejection names the limit
 * that rejected it.
 */
@RestController
@RequestMapping("/api")
public class SearchController {

    @GetMapping("/search")
    @RateLimited(name = "search", key = "#userId")
    public List<String> search(@RequestHeader("X-User-Id") String userId, @RequestParam("q") String query) {
        return List.of(query + " beans", query + " grinder", query + " filters");
    }
}
