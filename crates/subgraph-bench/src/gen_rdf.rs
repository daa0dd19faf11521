//! A GRR-like random RDF generator (GGQ's data, `../shared/papers/gpsm-ggq.md` §B.11: GRR, Blum
//! & Cohen, ESWC 2011, generates RDF after a schema of classes and the predicates between them).
//! Here the schema is a university's, as in LUBM: universities, departments, research groups,
//! professors, students, courses and publications, each entity of exactly one class
//! (`rdf:type`), joined by named predicates whose targets are drawn uniformly or by popularity
//! (a Zipf-like skew), with literal properties (`name`, `age`), and no self loops. Written as
//! N-Triples, one namespace (`NAMESPACE`) for entities, classes and predicates. With
//! `RdfSpec::facts` (issue 39) the same triples and more: people of several classes (professors
//! are employees and some researchers; some students are employees or researchers), pairs joined
//! by several predicates (`worksWith` beside `advisor` and `knows`; colleagues who know and work
//! with each other) and self loops (publications that cite themselves), the facts a property
//! graph of one label per vertex and one edge per pair would drop.

use crate::rng::Rng;
use std::io::{self, Write};

/// The namespace of every generated IRI.
pub const NAMESPACE: &str = "http://grr.example/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// Sizes per university (departments) and per department (the rest).
#[derive(Debug, Clone, Copy)]
pub struct RdfSpec {
    pub universities: u64,
    pub departments: u64,
    pub groups: u64,
    pub professors: u64,
    pub students: u64,
    pub courses: u64,
    pub publications: u64,
    pub seed: u64,
    /// Several classes per entity, several predicates per pair, self loops (drawn from their
    /// own random stream, so the other triples are those written without).
    pub facts: bool,
}

impl RdfSpec {
    /// A university with LUBM's proportions: 15 departments, each with 3 research groups, 12
    /// professors, 120 students, 30 courses and 60 publications (about 7,000 triples).
    pub fn universities(universities: u64, seed: u64) -> RdfSpec {
        RdfSpec {
            universities,
            departments: 15,
            groups: 3,
            professors: 12,
            students: 120,
            courses: 30,
            publications: 60,
            seed,
            facts: false,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RdfStats {
    pub entities: u64,
    pub triples: u64,
}

struct Writer<W: Write> {
    out: W,
    triples: u64,
}

impl<W: Write> Writer<W> {
    /// Types `(class, id)` as `also` (its own class, or a second one).
    fn also(&mut self, (class, id): (&str, u64), also: &str) -> io::Result<()> {
        self.triples += 1;
        writeln!(self.out, "<{NAMESPACE}{class}{id}> <{RDF_TYPE}> <{NAMESPACE}{also}> .")
    }

    fn typed(&mut self, class: &str, id: u64) -> io::Result<()> {
        self.also((class, id), class)
    }

    fn link(&mut self, (a, i): (&str, u64), predicate: &str, (b, j): (&str, u64)) -> io::Result<()> {
        self.triples += 1;
        writeln!(self.out, "<{NAMESPACE}{a}{i}> <{NAMESPACE}{predicate}> <{NAMESPACE}{b}{j}> .")
    }

    fn name(&mut self, (a, i): (&str, u64)) -> io::Result<()> {
        self.triples += 1;
        writeln!(self.out, "<{NAMESPACE}{a}{i}> <{NAMESPACE}name> \"{a} {i}\" .")
    }

    fn age(&mut self, (a, i): (&str, u64), age: u64) -> io::Result<()> {
        self.triples += 1;
        writeln!(
            self.out,
            "<{NAMESPACE}{a}{i}> <{NAMESPACE}age> \"{age}\"^^<http://www.w3.org/2001/XMLSchema#integer> ."
        )
    }
}

/// One of `n` targets (`first..first + n`), skewed towards the first ones: the integer part of
/// n · u^3 for u uniform in [0, 1), a few very popular targets and a long tail.
fn popular(rng: &mut Rng, first: u64, n: u64) -> u64 {
    let u = rng.unit();
    first + ((n as f64 * u * u * u) as u64).min(n - 1)
}

/// Writes the data of `spec` to `out` as N-Triples.
pub fn write_rdf(spec: &RdfSpec, out: impl Write) -> io::Result<RdfStats> {
    let mut w = Writer { out: io::BufWriter::new(out), triples: 0 };
    let mut rng = Rng::new(spec.seed);
    let mut extra = Rng::new(spec.seed ^ 0x9e37_79b9_7f4a_7c15);
    let s = spec;
    let facts = s.facts;
    let depts = s.universities * s.departments;
    let (people, students) = (depts * s.professors, depts * s.students);
    for u in 0..s.universities {
        w.typed("University", u)?;
        w.name(("University", u))?;
    }
    for d in 0..depts {
        let dept = ("Department", d);
        w.typed("Department", d)?;
        w.link(dept, "subOrganizationOf", ("University", d / s.departments))?;
        for g in d * s.groups..(d + 1) * s.groups {
            w.typed("ResearchGroup", g)?;
            w.link(("ResearchGroup", g), "subOrganizationOf", dept)?;
        }
        for c in d * s.courses..(d + 1) * s.courses {
            w.typed("Course", c)?;
            w.name(("Course", c))?;
        }
        for p in d * s.professors..(d + 1) * s.professors {
            let prof = ("Professor", p);
            w.typed("Professor", p)?;
            w.name(prof)?;
            w.age(prof, 30 + rng.below(40))?;
            w.link(prof, "worksFor", dept)?;
            w.link(prof, "degreeFrom", ("University", popular(&mut rng, 0, s.universities)))?;
            if facts {
                w.also(prof, "Employee")?;
                if p % 2 == 0 {
                    w.also(prof, "Researcher")?;
                }
                // Colleagues: the next professor of the department, known and worked with.
                let next = ("Professor", d * s.professors + (p + 1) % s.professors);
                if next.1 != p {
                    w.link(prof, "knows", next)?;
                    w.link(prof, "worksWith", next)?;
                }
            }
            // Each course of the department has one teacher; professors teach 2-3 of them.
            for k in 0..2 + rng.below(2) {
                w.link(prof, "teacherOf", ("Course", d * s.courses + (p % s.professors * 3 + k) % s.courses))?;
            }
        }
        for st in d * s.students..(d + 1) * s.students {
            let student = ("Student", st);
            w.typed("Student", st)?;
            w.name(student)?;
            w.age(student, 18 + rng.below(12))?;
            w.link(student, "memberOf", dept)?;
            let advisor = ("Professor", d * s.professors + rng.below(s.professors));
            w.link(student, "advisor", advisor)?;
            if facts {
                if st % 4 == 0 {
                    w.also(student, "Employee")?;
                }
                if st % 6 == 0 {
                    w.also(student, "Researcher")?;
                }
                if extra.below(2) == 0 {
                    w.link(student, "worksWith", advisor)?;
                }
            }
            for _ in 0..2 + rng.below(4) {
                w.link(student, "takesCourse", ("Course", popular(&mut rng, d * s.courses, s.courses)))?;
            }
            // Students know other students anywhere, popular ones more (never themselves: a
            // self loop, which property graphs do not hold).
            for _ in 0..rng.below(4) {
                let other = popular(&mut rng, 0, students);
                if other != st {
                    w.link(student, "knows", ("Student", other))?;
                    if facts && extra.below(3) == 0 {
                        w.link(student, "worksWith", ("Student", other))?;
                    }
                }
            }
        }
        for x in d * s.publications..(d + 1) * s.publications {
            let publication = ("Publication", x);
            w.typed("Publication", x)?;
            w.link(publication, "publicationAuthor", ("Professor", d * s.professors + rng.below(s.professors)))?;
            for _ in 0..rng.below(3) {
                w.link(publication, "publicationAuthor", ("Student", d * s.students + rng.below(s.students)))?;
            }
            if facts {
                // Citations of earlier publications, popular ones more; one in ten cites itself.
                w.link(publication, "cites", ("Publication", popular(&mut extra, 0, x + 1)))?;
                if extra.below(10) == 0 {
                    w.link(publication, "cites", publication)?;
                }
            }
        }
    }
    w.out.flush()?;
    let entities = s.universities + depts * (1 + s.groups + s.courses + s.publications) + people + students;
    Ok(RdfStats { entities, triples: w.triples })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_writes_the_same_triples_and_every_entity_is_typed_once() {
        let spec = RdfSpec::universities(2, 7);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let stats = write_rdf(&spec, &mut a).unwrap();
        write_rdf(&spec, &mut b).unwrap();
        assert_eq!(a, b);
        let text = String::from_utf8(a).unwrap();
        assert_eq!(text.lines().count() as u64, stats.triples);
        let types = text.lines().filter(|l| l.contains(RDF_TYPE)).count() as u64;
        assert_eq!(types, stats.entities);
        let c = write_rdf(&RdfSpec { seed: 8, ..spec }, Vec::new()).unwrap();
        assert_eq!(c.entities, stats.entities);
    }
}

#[cfg(test)]
mod facts_tests {
    use super::*;

    #[test]
    fn facts_add_classes_predicates_and_loops_to_the_same_triples() {
        let plain = RdfSpec::universities(1, 3);
        let mut a = Vec::new();
        write_rdf(&plain, &mut a).unwrap();
        let mut b = Vec::new();
        let stats = write_rdf(&RdfSpec { facts: true, ..plain }, &mut b).unwrap();
        let (a, b) = (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
        let with: std::collections::HashSet<&str> = b.lines().collect();
        assert!(a.lines().all(|l| with.contains(l)), "every plain triple is there");
        assert_eq!(b.lines().count() as u64, stats.triples);
        assert!(b.contains("<http://grr.example/Professor0> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://grr.example/Employee> ."));
        let loops = b.lines().filter(|l| {
            let t: Vec<&str> = l.split(' ').collect();
            t[0] == t[2] && t[1].ends_with("cites>")
        });
        assert!(loops.count() > 0, "self citations");
        let pairs: Vec<(&str, &str)> = b
            .lines()
            .filter(|l| !l.contains("#type") && !l.contains('"'))
            .map(|l| {
                let t: Vec<&str> = l.split(' ').collect();
                (t[0], t[2])
            })
            .collect();
        let distinct: std::collections::HashSet<_> = pairs.iter().collect();
        assert!(distinct.len() < pairs.len(), "some pair is joined by several predicates");
    }
}
