"""tai-note's own tests, written with tai's testing kit (the ``tai_*`` fixtures come with
tai-core): the note kind registered as tai registers it, a scripted model's reply parsed,
the note filed, and what the model is told afterwards."""

from __future__ import annotations

import tai_note

NOTE = '<<紫藤 note(topic="follow-up")\nfetch.go ignores cancellation.\n紫藤\n'
SUMMARY = "<<松柏 summary\n- filed a note\n松柏\n"


def test_a_note_is_filed_and_the_run_goes_on(tai_plugin, tai_model, tai_project, tai_run):
    tai_plugin(tai_note, "note")
    project = tai_project({"fetch.go": "package fetch\n"})
    model = tai_model(f"Something to keep.\n{NOTE}{SUMMARY}")
    run = tai_run(model, "Review fetch.go.", cwd=project, command="any")
    assert run.finished, run.terminal
    assert (project / "NOTES.md").read_text() == (
        "## follow-up\n\nfetch.go ignores cancellation.\n\n"
    )
    assert [result.text for result in run.results if result.kind == "note"] == [
        "Note filed in NOTES.md."
    ]
    assert "# note blocks" in model.requests[0].system  # the kind's prompt section was sent


def test_a_note_without_a_topic_is_refused_and_the_model_is_told(
    tai_plugin, tai_model, tai_project, tai_run
):
    tai_plugin(tai_note, "note")
    project = tai_project()
    untitled = "<<紫藤 note\nno topic\n紫藤\n"
    model = tai_model(untitled, f"Fixed.\n{NOTE}{SUMMARY}")
    run = tai_run(model, "Leave a note.", cwd=project, command="any")
    assert run.finished, run.terminal
    assert len(model.requests) == 2
    told = model.requests[1].messages[-1].text
    assert "topic" in told  # the validation problem went back to the model
    assert (project / "NOTES.md").read_text().count("## follow-up") == 1
