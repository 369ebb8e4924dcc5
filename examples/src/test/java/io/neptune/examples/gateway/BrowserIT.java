package io.neptune.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web UI in headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, driven
 * through Selenium with explicit paths, so Selenium Manager never downloads anything): posts a
 * message and sees it in the thread, places a bid and sees the new highest bid, opens the front page
 * (the multi-tier service) and sees both parts and the request's trace id, and the dashboard
 * shows every node. Saves {@code docs/images/ui.png} and {@code docs/images/dashboard.png}.
 * Skipped when the browser or the driver is not installed.
 */
class BrowserIT {
    @TempDir
    Path profile;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void postsAMessageBidsAndShowsEveryNodeOnTheDashboard() throws Exception {
        Browser.assumeInstalled();
        RecordingDemoControl demo = new RecordingDemoControl(List.of("node-0", "node-1"));
        // the nodes schedule by class, so the dashboard shows its service-classes table (and writes are
        // admitted through the class-aware scheduler under a real browser's load)
        SchedulingConfig classes = SchedulingConfig.builder().policy(SchedulingPolicy.YID)
                .serviceClass(new ServiceClass("gold", YieldFunction.hybrid(4, Duration.ofSeconds(1), 2,
                        Duration.ofSeconds(2)), 0.2))
                .serviceClass(new ServiceClass("bronze", YieldFunction.hybrid(1, Duration.ofSeconds(1), 0.5,
                        Duration.ofSeconds(2)), 0.2))
                .build();
        try (GatewayCluster cluster = GatewayCluster.start(2, b -> b.demoControl(demo), classes)) {
            Http http = new Http(cluster.baseUrl(), Optional.of("seed-" + UUID.randomUUID()));
            String itemId = seed(http);
            ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
            try (Browser browser = Browser.open(profile)) {
                WebDriver driver = browser.driver();
                WebDriverWait wait = browser.waiting();
                // as the demo prints it: the token in the fragment, which the page keeps and the browser never sends
                driver.get(cluster.baseUrl() + "/#token=" + GatewayCluster.ADMIN_TOKEN);
                wait.until(d -> d.findElements(By.cssSelector("#headers li")).size() >= 4);

                String subject = "Hello from the browser " + UUID.randomUUID().toString().substring(0, 6);
                driver.findElement(By.id("post-author")).sendKeys("Selenium");
                driver.findElement(By.id("post-subject")).sendKeys(subject);
                driver.findElement(By.id("post-body")).sendKeys("Posted through the gateway by headless Chromium.");
                driver.findElement(By.id("post-submit")).click();
                untilStatus(driver, wait, "post-status", "Posted message");
                wait.until(d -> d.findElements(By.cssSelector("#headers li .subject")).stream()
                        .anyMatch(e -> e.getText().equals(subject)));
                wait.until(ExpectedConditions.textToBe(By.id("message-subject"), subject));

                wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#items tr[data-item-id='" + itemId
                        + "']"))).click();
                wait.until(ExpectedConditions.attributeToBe(By.id("item"), "data-item-id", itemId));
                wait.until(ExpectedConditions.textToBe(By.id("item-highest-bid"), "$18.00"));
                driver.findElement(By.id("bid-bidder")).sendKeys("Selenium");
                driver.findElement(By.id("bid-amount")).sendKeys("25");
                driver.findElement(By.id("bid-submit")).click();
                untilStatus(driver, wait, "bid-status", "highest");
                wait.until(ExpectedConditions.textToBe(By.id("item-highest-bid"), "$25.00"));
                assertThat(driver.findElement(By.id("item-highest-bidder")).getText()).isEqualTo("by Selenium");
                JsonNode item = http.get("/api/auction/items/" + itemId).json();
                assertThat(item.get("highestBid").asLong()).isEqualTo(2500);
                browser.save("ui.png");

                seesTheFrontPage(driver, wait, subject);

                AtomicInteger tick = new AtomicInteger();
                load.scheduleAtFixedRate(() -> background(http, itemId, tick.incrementAndGet()), 0, 20,
                        TimeUnit.MILLISECONDS);
                driver.findElement(By.id("nav-cluster")).click();
                // The dashboard redraws every second, so elements go stale: every check is a retried wait.
                WebDriverWait live = browser.waiting();
                live.until(d -> d.findElements(By.cssSelector("#partitions .cell")).size()
                        == GatewayCluster.ANNOUNCED_PARTITIONS);
                live.until(d -> d.findElements(By.cssSelector("#nodes tbody tr[data-node][data-state='RUNNING']"))
                        .stream().map(e -> e.getAttribute("data-node")).collect(Collectors.toSet())
                        .equals(cluster.nodeIds()));
                live.until(d -> d.findElements(By.cssSelector("#nodes tbody tr[data-node]")).size()
                        == cluster.nodeIds().size());
                live.until(d -> d.findElements(By.cssSelector("#nodes button[data-action='kill']")).size()
                        == cluster.nodeIds().size());
                live.until(d -> d.findElements(By.cssSelector(
                        "#partitions .cell[data-primary='']:not([data-service='front'])")).isEmpty()); // front: level 1
                live.until(d -> Integer.parseInt(d.findElement(By.id("gateway-rate")).getText()) > 0);
                live.until(d -> d.findElement(By.cssSelector("#rate-history polyline")).getAttribute("points")
                        .split(" ").length >= 5);
                String partition = itemId.substring(0, itemId.indexOf('-'));
                live.until(d -> {
                    d.findElement(By.cssSelector(".cell[data-service='auction'][data-partition='" + partition + "']"))
                            .click();
                    return true;
                });
                live.until(d -> d.findElements(By.cssSelector("#partition-detail td.digest")).size() == 2);
                live.until(d -> Long.parseLong(d.findElement(By.cssSelector(
                        "#classes tr[data-service='auction'][data-class='gold'] td:nth-child(3)")).getText()) > 0);
                browser.save("dashboard.png");
                // an admin action from the page: it sends the token it took from the URL
                live.until(d -> {
                    d.findElement(By.cssSelector("#nodes button[data-action='kill'][data-node='node-1']")).click();
                    return true;
                });
                live.until(d -> demo.actions.contains("kill node-1"));
            } finally {
                load.shutdownNow();
            }
        }
    }

    /**
     * The multi-tier front page shows the topic's posts, newest (the browser's) first, the category's
     * items, both parts answered, and the request's trace id with the command that finds its spans.
     */
    private static void seesTheFrontPage(WebDriver driver, WebDriverWait wait, String newestSubject) {
        driver.findElement(By.id("nav-front")).click();
        try {
            wait.until(d -> {
                if (d.findElements(By.cssSelector("#front-posts li")).size() == 6
                        && d.findElements(By.cssSelector("#front-items tbody tr")).size() == 3
                        && d.findElements(By.cssSelector("#front-parts li[data-ok='true']")).size() == 2
                        && !d.findElements(By.id("front-trace-id")).isEmpty()) {
                    return true;
                }
                d.findElement(By.id("front-submit")).click(); // the front's own reads may lag: load again
                return false;
            });
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("front page: " + driver.findElement(By.id("front-meta")).getText() + " / "
                    + driver.findElement(By.id("front-parts")).getText() + " / "
                    + driver.findElement(By.id("front-trace")).getText(), e);
        }
        assertThat(driver.findElements(By.cssSelector("#front-posts li .subject")).get(0).getText())
                .isEqualTo(newestSubject);
        String traceId = driver.findElement(By.id("front-trace-id")).getText();
        assertThat(traceId).matches("[0-9a-f]{32}");
        assertThat(driver.findElement(By.id("front-trace")).getText())
                .contains("grep " + traceId + " neptune-data/traces.jsonl");
    }

    /** Waits until the status line {@code id} says {@code text}; on timeout, says what it showed instead. */
    private static void untilStatus(WebDriver driver, WebDriverWait wait, String id, String text) {
        try {
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id(id), text));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError(id + " never said '" + text + "'; it says: '"
                    + driver.findElement(By.id(id)).getText() + "'", e);
        }
    }

    /** Seeds a topic with threads and replies and three categories with items and bids; returns an item to bid on. */
    private static String seed(Http http) {
        long welcome = post(http, "Ada", "Welcome to Neptune", "Say hello and tell us what you are building.", null);
        post(http, "Grace", "Re: Welcome to Neptune", "Hello! Trying the replicated discussion group.", welcome);
        long failover = post(http, "Linus", "How fast is fail-over?", "Kill a node on the dashboard and watch.", null);
        long reply = post(http, "Barbara", "Re: How fast is fail-over?", "About a second on loopback.", failover);
        post(http, "Linus", "Re: Re: How fast is fail-over?", "Nice, no acknowledged write lost.", reply);
        String dune = offer(http, "books", "Dune, first edition", "frank", 1000);
        bid(http, dune, "paul", 1200);
        bid(http, dune, "jessica", 1800);
        bid(http, offer(http, "books", "The Mythical Man-Month", "fred", 500), "ken", 700);
        offer(http, "books", "Structure and Interpretation of Computer Programs", "hal", 1500);
        bid(http, offer(http, "games", "Go board, kaya wood", "sai", 9000), "hikaru", 9500);
        offer(http, "music", "Goldberg Variations (vinyl)", "glenn", 2500);
        return dune;
    }

    private static long post(Http http, String author, String subject, String body, Long parentId) {
        Reply reply = http.postUntilAnswered("/api/discussion/general/messages", "{\"author\":\"" + author
                + "\",\"subject\":\"" + subject + "\",\"body\":\"" + body + "\""
                + (parentId == null ? "" : ",\"parentId\":" + parentId) + "}");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        return reply.json().get("id").asLong();
    }

    private static String offer(Http http, String category, String title, String seller, long cents) {
        Reply reply = http.postUntilAnswered("/api/auction/categories/" + category + "/items", "{\"title\":\"" + title
                + "\",\"seller\":\"" + seller + "\",\"startingPrice\":" + cents + "}");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    private static void bid(Http http, String itemId, String bidder, long cents) {
        Reply reply = http.postUntilAnswered("/api/auction/items/" + itemId + "/bids", "{\"bidder\":\"" + bidder
                + "\",\"amount\":" + cents + "}");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
    }

    /** A light read/write mix so the dashboard shows traffic; failures are ignored (it is only decoration). */
    private static void background(Http http, String itemId, int tick) {
        try {
            switch (tick % 4) {
                case 0 -> http.get("/api/discussion/general/headers");
                case 1 -> http.send(http.asAdmin("/api/auction/items/" + itemId).header("X-Neptune-Class",
                        tick % 8 == 1 ? "gold" : "bronze").GET());
                case 2 -> http.put("/api/cache/key-" + (tick % 50), ("value " + tick).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                default -> http.get("/api/cache/key-" + (tick % 50));
            }
        } catch (RuntimeException e) {
            // decoration only
        }
    }
}
