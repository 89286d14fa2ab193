# The reproduction report: every paper's claims table (claim, paper value, ours, verdict), the
# markdown tables its rules register in REPORT_SECTIONS (common.smk) and its figures, gathered
# into REPRODUCTION.md and one self-contained HTML page (figures embedded).
from schedrl.commands.record import recorded_path


rule reproduction_report:
    input:
        claims=lambda wildcards: CLAIMS,
        sections=lambda wildcards: REPORT_SECTIONS,
        figures=lambda wildcards: [f for p in PAPERS for f in paper_targets(p) if f.endswith(".png")],
        fingerprints=lambda wildcards: [f for p in PAPERS for f in paper_targets(p) if f.endswith("/fingerprints.csv")],
        # verdicts of recorded default runs, shown beside this build's (schedrl record)
        recorded=lambda wildcards: [str(f) for f in map(recorded_path, PAPERS) if f.is_file()],
        # the report opens with every paper's normalised score (workflow/rules/normalised.smk)
        normalised=rules.normalised.output.aggregate,
    output:
        report="results/report/REPRODUCTION.md",
        html="results/report/index.html",
        claims="results/report/claims.csv",
    params:
        scale=config["scale"],
    log:
        "logs/report/reproduction.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl report --scale {params.scale} --claims {input.claims:q} --sections {input.sections:q} "
        "--fingerprints {input.fingerprints:q} --out {output.report:q} --html {output.html:q} --claims-out {output.claims:q} --normalised {input.normalised:q} > {log:q} 2>&1"


register("report", *rules.reproduction_report.output)
