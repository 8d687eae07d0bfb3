//! The `@` picker (issue 23): names offered before middles, letters in order, nothing it cannot
//! attach, and never a listing the vault changed under.

mod common;

use common::*;

use smarthole_agent::testing::FakeHost;
use smarthole_agent::Host;

#[test]
fn the_picker_offers_names_before_middles_and_letters_in_order_and_nothing_it_cannot_attach() {
    let host = FakeHost::new();
    for path in
        ["Projects/Plan.md", "Archive/old plans/2019.md", "Daily/2026-11-24.md", "Planet.md", "pic.png", "a.zip"]
    {
        host.put_note(path, "x");
    }
    host.put_note(".obsidian/plan.json", "{}");
    let p = processor(&host);
    let find = |q: &str| -> Vec<String> { host.run(p.mentions(q, 10)).into_iter().map(|m| m.path).collect() };
    assert_eq!(find("plan")[..2], ["Planet.md", "Projects/Plan.md"]);
    assert!(find("plan").contains(&"Archive/old plans/2019.md".to_owned()));
    assert_eq!(find("d1124"), ["Daily/2026-11-24.md"], "letters in order");
    assert!(find("zip").is_empty(), "what cannot be attached is not offered");
    assert!(!find("json").iter().any(|p| p.starts_with(".obsidian")), "protected folders are not offered");
    assert!(find("proj").contains(&"Projects".to_owned()), "folders are offered");
    assert_eq!(find("").len(), 9, "an empty query lists what there is, newest first");

    // Typed a key at a time, each query is matched among the last one's matches: the same answers
    // as asked afresh, and going back (a deleted letter) asks the whole listing again.
    let typed: Vec<Vec<String>> = ["p", "pl", "pla", "plan", "pla"].iter().map(|q| find(q)).collect();
    p.vault_changed("nothing.md", "delete");
    for (q, answer) in ["p", "pl", "pla", "plan", "pla"].iter().zip(&typed) {
        assert_eq!(&find(q), answer, "{q}");
        p.vault_changed("nothing.md", "delete");
    }
    find("");

    // Listed once; a new name lists again, an edit does not.
    host.put_note("Plan B.md", "x");
    assert!(!find("plan b").contains(&"Plan B.md".to_owned()));
    p.vault_changed("Planet.md", "modify");
    assert!(!find("plan b").contains(&"Plan B.md".to_owned()));
    p.vault_changed("Plan B.md", "create");
    assert_eq!(find("plan b")[0], "Plan B.md");
}

#[test]
fn the_picker_never_keeps_a_listing_the_vault_changed_under_nor_mixes_two_listings() {
    let host = FakeHost::new();
    for path in ["Alpha.md", "Alpine.md", "Apple.md", "Apricot.md"] {
        host.put_note(path, "x");
    }
    host.set_list_arrives_ms(100);
    let p = processor(&host);
    let paths = |found: Vec<smarthole_agent::Mention>| -> Vec<String> { found.into_iter().map(|m| m.path).collect() };
    // A note deleted while the first keystroke's listing is on its way: that listing answers the
    // keystroke, but the next one lists again.
    host.run(async {
        let typed = p.mentions("a", 10);
        let deleted = async {
            host.sleep(50).await;
            host.remove_note("Apple.md");
            p.vault_changed("Apple.md", "delete");
        };
        futures::join!(typed, deleted);
    });
    assert!(!paths(host.run(p.mentions("ap", 10))).contains(&"Apple.md".to_owned()), "listed again");
    // Two keystrokes listing at once, a note deleted between their listings: each answer comes
    // from one listing, never indices of one applied to the other.
    p.vault_changed("Alpha.md", "delete");
    host.remove_note("Alpha.md");
    let (first, second) = host.run(async {
        let first = p.mentions("a", 10);
        let second = async {
            host.sleep(10).await;
            host.remove_note("Alpine.md");
            p.mentions("ap", 10).await
        };
        futures::join!(first, second)
    });
    assert_eq!(paths(first), ["Alpine.md", "Apricot.md"]);
    assert_eq!(paths(second), ["Apricot.md"], "the newer listing, without Alpine.md");
}
